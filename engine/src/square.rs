//! Squares, colours and directions.
//!
//! Internally a square is an index into a padded 20×20 mailbox (two guard files and ranks on
//! every side), so that steps, slides and the distance-2 jumps of lions and knights can test
//! "off the board" with one lookup instead of coordinate arithmetic. Public code sees files
//! `0..16` (CECP `a..p`, Black's left to right) and ranks `0..16` (CECP `1..16`, Black's side
//! first); [`Square::index`] gives the dense `0..256` index used by tables and tensors.

use std::fmt;

/// Width of the padded mailbox.
pub const PAD_W: i32 = 20;
/// Number of cells in the padded mailbox.
pub const PAD_CELLS: usize = 400;
/// Number of real squares.
pub const NUM_SQUARES: usize = 256;

/// A side. Black (Sente) moves first and starts at the bottom (ranks 1..5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    Black = 0,
    White = 1,
}

impl Color {
    #[inline]
    pub fn other(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }
    pub fn name(self) -> &'static str {
        match self {
            Color::Black => "Black",
            Color::White => "White",
        }
    }
}

/// A square of the 16×16 board (stored as its padded-mailbox index; never a guard cell).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u16);

impl Square {
    /// Square from file (`0` = CECP `a`) and rank (`0` = CECP `1`); `None` off the board.
    #[inline]
    pub fn new(file: i32, rank: i32) -> Option<Square> {
        if (0..16).contains(&file) && (0..16).contains(&rank) {
            Some(Square(((rank + 2) * PAD_W + file + 2) as u16))
        } else {
            None
        }
    }
    /// Square from the dense index `rank * 16 + file`.
    #[inline]
    pub fn from_index(i: usize) -> Square {
        debug_assert!(i < NUM_SQUARES);
        Square((((i >> 4) as i32 + 2) * PAD_W + (i & 15) as i32 + 2) as u16)
    }
    /// Padded-mailbox cell (for move generation).
    #[inline]
    pub fn pad(self) -> usize {
        self.0 as usize
    }
    /// Square from a padded cell known to be on the board.
    #[inline]
    pub fn from_pad(p: usize) -> Square {
        Square(p as u16)
    }
    #[inline]
    pub fn file(self) -> i32 {
        self.0 as i32 % PAD_W - 2
    }
    #[inline]
    pub fn rank(self) -> i32 {
        self.0 as i32 / PAD_W - 2
    }
    /// Dense index `rank * 16 + file`, `0..256`.
    #[inline]
    pub fn index(self) -> usize {
        (self.rank() * 16 + self.file()) as usize
    }
    /// All 256 squares in dense-index order.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..NUM_SQUARES).map(Square::from_index)
    }
    /// Chebyshev (king-step) distance.
    pub fn distance(self, other: Square) -> i32 {
        (self.file() - other.file()).abs().max((self.rank() - other.rank()).abs())
    }
    /// The square seen from the other side (180° rotation).
    pub fn rotate(self) -> Square {
        Square::new(15 - self.file(), 15 - self.rank()).unwrap()
    }

    /// CECP/XBoard name: file letter `a..p`, rank number `1..16` (`h4`, `p16`).
    pub fn cecp(self) -> String {
        format!("{}{}", (b'a' + self.file() as u8) as char, self.rank() + 1)
    }
    /// Hodges/Japanese name: file number `16..1` from Black's left, rank letter `a..p` from
    /// the top (`9p` is CECP `h1`).
    pub fn hodges(self) -> String {
        format!("{}{}", 16 - self.file(), (b'a' + (15 - self.rank()) as u8) as char)
    }

    /// Parse the CECP form at the start of `s`; returns the square and the bytes used.
    pub fn parse_cecp_prefix(s: &str) -> Option<(Square, usize)> {
        let b = s.as_bytes();
        let f = *b.first()?;
        if !(b'a'..=b'p').contains(&f) {
            return None;
        }
        let mut n = 1;
        while n < b.len() && n < 3 && b[n].is_ascii_digit() {
            n += 1;
        }
        if n == 1 {
            return None;
        }
        let r: i32 = s[1..n].parse().ok()?;
        if !(1..=16).contains(&r) || (n == 3 && b[1] == b'0') {
            return None;
        }
        Some((Square::new((f - b'a') as i32, r - 1)?, n))
    }
    /// Parse a whole CECP square name.
    pub fn parse_cecp(s: &str) -> Option<Square> {
        match Square::parse_cecp_prefix(s) {
            Some((sq, n)) if n == s.len() => Some(sq),
            _ => None,
        }
    }
    /// Parse the Hodges form at the start of `s` (`9p`, `16a`); returns square and bytes used.
    pub fn parse_hodges_prefix(s: &str) -> Option<(Square, usize)> {
        let b = s.as_bytes();
        let mut n = 0;
        while n < b.len() && n < 2 && b[n].is_ascii_digit() {
            n += 1;
        }
        if n == 0 || n >= b.len() || b[0] == b'0' {
            return None;
        }
        let file: i32 = s[..n].parse().ok()?;
        let r = b[n].to_ascii_lowercase();
        if !(1..=16).contains(&file) || !(b'a'..=b'p').contains(&r) {
            return None;
        }
        Some((Square::new(16 - file, 15 - (r - b'a') as i32)?, n + 1))
    }
    pub fn parse_hodges(s: &str) -> Option<Square> {
        match Square::parse_hodges_prefix(s) {
            Some((sq, n)) if n == s.len() => Some(sq),
            _ => None,
        }
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.cecp())
    }
}
impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.cecp())
    }
}

/// The 8 directions as seen by Black: 0 = forward (towards rank 16), clockwise.
/// For White a relative direction `d` is the absolute direction `(d + 4) % 8`.
pub mod dir {
    pub const N: u8 = 0;
    pub const NE: u8 = 1;
    pub const E: u8 = 2;
    pub const SE: u8 = 3;
    pub const S: u8 = 4;
    pub const SW: u8 = 5;
    pub const W: u8 = 6;
    pub const NW: u8 = 7;

    /// Padded-mailbox offset of one step in each absolute direction.
    pub const OFFSET: [i32; 8] = [20, 21, 1, -19, -20, -21, -1, 19];
    /// (file, rank) delta of each absolute direction.
    pub const DELTA: [(i32, i32); 8] = [(0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1)];

    /// Direction masks (bit `d` = direction `d`), relative to the piece's forward.
    pub const FORWARD: u8 = 1 << N;
    pub const BACKWARD: u8 = 1 << S;
    pub const SIDEWAYS: u8 = (1 << E) | (1 << W);
    pub const VERTICAL: u8 = FORWARD | BACKWARD;
    pub const ORTHOGONAL: u8 = VERTICAL | SIDEWAYS;
    pub const FORWARD_DIAGONAL: u8 = (1 << NE) | (1 << NW);
    pub const BACKWARD_DIAGONAL: u8 = (1 << SE) | (1 << SW);
    pub const DIAGONAL: u8 = FORWARD_DIAGONAL | BACKWARD_DIAGONAL;
    pub const ALL: u8 = 0xFF;

    /// Rotate a relative mask to absolute directions for a side (White turns by 180°).
    #[inline]
    pub const fn for_side(mask: u8, white: bool) -> u8 {
        if white {
            mask.rotate_left(4)
        } else {
            mask
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_1_coordinates_convert_both_ways() {
        // RULES.md §1: xboard a1 = 16p, p16 = 1a, h1 = 9p, i16 = 8a.
        for (x, h) in [("a1", "16p"), ("p16", "1a"), ("h1", "9p"), ("i16", "8a"), ("i1", "8p")] {
            let s = Square::parse_cecp(x).unwrap();
            assert_eq!(s.hodges(), h);
            assert_eq!(Square::parse_hodges(h), Some(s));
            assert_eq!(s.cecp(), x);
        }
        for i in 0..NUM_SQUARES {
            let s = Square::from_index(i);
            assert_eq!(s.index(), i);
            assert_eq!(Square::parse_cecp(&s.cecp()), Some(s));
            assert_eq!(Square::parse_hodges(&s.hodges()), Some(s));
        }
        for bad in ["", "a", "a0", "q1", "a17", "a01", "a1x"] {
            assert_eq!(Square::parse_cecp(bad), None, "{bad}");
        }
        for bad in ["", "0a", "17a", "1q", "9", "01a"] {
            assert_eq!(Square::parse_hodges(bad), None, "{bad}");
        }
    }
}
