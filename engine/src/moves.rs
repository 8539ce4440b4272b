//! The compact [`Move`] value and the fixed-capacity [`MoveList`].
//!
//! Move identity follows RULES.md §7.2: origin, the squares captured by the mover's own
//! intermediate legs (in order), destination, promotion. Burns are consequences of a move,
//! never part of it. The capture on the final square is implied by the destination.

use crate::square::Square;

const PROMOTE: u8 = 1;
const NULL_PASS: u8 = 2;

/// One move. 10 bytes, `Copy`, no heap.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    from: u16,
    to: u16,
    /// Intermediate capture squares (padded cells; 0 = none). At most two: the house rules'
    /// lion-like area move captures up to three pieces, the last on its destination.
    via: [u16; 2],
    flags: u8,
}

impl Move {
    /// The pass that leaves the board unchanged (`@@@@`): one per position, whatever passes.
    pub const NULL_PASS: Move = Move { from: 0, to: 0, via: [0, 0], flags: NULL_PASS };

    /// A one-leg move (step, slide, jump, range jump, area move, lion move whose only capture is
    /// on its destination). `from == to` is a board-changing pass of the piece on `from`.
    #[inline]
    pub fn new(from: Square, to: Square, promote: bool) -> Move {
        Move { from: from.pad() as u16, to: to.pad() as u16, via: [0, 0], flags: promote as u8 }
    }
    /// A multi-leg move capturing on `via` (1 or 2 squares) before ending on `to`
    /// (`to == from` for igui).
    #[inline]
    pub fn with_via(from: Square, via: &[Square], to: Square, promote: bool) -> Move {
        debug_assert!(!via.is_empty() && via.len() <= 2);
        let mut v = [0u16; 2];
        for (i, s) in via.iter().enumerate() {
            v[i] = s.pad() as u16;
        }
        Move { from: from.pad() as u16, to: to.pad() as u16, via: v, flags: promote as u8 }
    }
    #[inline]
    pub(crate) fn raw(from: usize, via0: usize, via1: usize, to: usize, promote: bool) -> Move {
        Move { from: from as u16, to: to as u16, via: [via0 as u16, via1 as u16], flags: promote as u8 }
    }
    #[inline]
    pub fn is_null_pass(self) -> bool {
        self.flags & NULL_PASS != 0
    }
    /// Origin square (`None` for the null pass).
    #[inline]
    pub fn from(self) -> Option<Square> {
        (self.from != 0).then(|| Square::from_pad(self.from as usize))
    }
    /// Final square of the mover (`None` for the null pass).
    #[inline]
    pub fn to(self) -> Option<Square> {
        (self.to != 0).then(|| Square::from_pad(self.to as usize))
    }
    /// Squares captured by intermediate legs, in order.
    pub fn via(self) -> impl Iterator<Item = Square> {
        self.via.into_iter().filter(|&v| v != 0).map(|v| Square::from_pad(v as usize))
    }
    #[inline]
    pub fn via_count(self) -> usize {
        (self.via[0] != 0) as usize + (self.via[1] != 0) as usize
    }
    #[inline]
    pub fn promotes(self) -> bool {
        self.flags & PROMOTE != 0
    }
    /// A piece's pass that changes the board (written `g3g3`): origin = destination, no legs.
    #[inline]
    pub fn is_piece_pass(self) -> bool {
        !self.is_null_pass() && self.from == self.to && self.via[0] == 0
    }
    /// Either kind of pass.
    pub fn is_pass(self) -> bool {
        self.is_null_pass() || self.is_piece_pass()
    }
    /// Igui or any multi-leg move that returns to its origin after capturing.
    pub fn returns_home(self) -> bool {
        !self.is_null_pass() && self.from == self.to && self.via[0] != 0
    }
    // The padded-board index of the origin square (not a constructor, whatever the name says).
    #[allow(clippy::wrong_self_convention)]
    #[inline]
    pub fn from_pad(self) -> usize {
        self.from as usize
    }
    #[inline]
    pub fn to_pad(self) -> usize {
        self.to as usize
    }
    #[inline]
    pub fn via_pad(self) -> [u16; 2] {
        self.via
    }
    /// The same move with the promotion flag set or cleared.
    pub fn with_promotion(self, promote: bool) -> Move {
        Move { flags: (self.flags & !PROMOTE) | promote as u8, ..self }
    }
}

/// Moves a [`MoveList`] holds without touching the heap: far above the move count of any
/// standard-rules position (a few hundred). Only the house rules' lion-like area moves (up to
/// ~800 moves for one piece) can exceed it in contrived positions; the list then spills to the
/// heap instead of failing.
pub const MAX_MOVES: usize = 1024;

/// A list of moves stored inline (no allocation per generated move, nor per list in practice).
pub struct MoveList {
    moves: smallvec::SmallVec<[Move; MAX_MOVES]>,
}

impl Default for MoveList {
    fn default() -> Self {
        Self::new()
    }
}

impl MoveList {
    pub fn new() -> MoveList {
        MoveList { moves: smallvec::SmallVec::new() }
    }
    #[inline]
    pub fn push(&mut self, m: Move) {
        self.moves.push(m);
    }
    #[inline]
    pub fn clear(&mut self) {
        self.moves.clear();
    }
    #[inline]
    pub fn len(&self) -> usize {
        self.moves.len()
    }
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }
    #[inline]
    pub fn as_slice(&self) -> &[Move] {
        &self.moves
    }
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        &mut self.moves
    }
    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }
    pub fn contains(&self, m: Move) -> bool {
        self.as_slice().contains(&m)
    }
    pub fn truncate(&mut self, n: usize) {
        self.moves.truncate(n);
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}
