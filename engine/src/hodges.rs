//! Hodges notation for people (RULES.md §1): `P-9k`, `Nx7d=`, `Lnx!9d`, `Lnx3hx2i`,
//! `FiD-5f!4e!6e`, `G-5f*`, `pass`.
//!
//! # Grammar (what [`to_hodges`] writes; [`parse_hodges`] reads it back)
//!
//! ```text
//! move     := "pass"                                  the board-neutral pass (CECP `@@@@`)
//!           | piece [origin] legs annot
//! piece    := ["+"] ABBR        Piece::abbr(): start type, "+" when promoted (+P moves as G)
//! origin   := SQUARE            only when another piece of the same abbreviation could make a
//!                               move written the same way (R16n-16k)
//! legs     := ("x" SQUARE)* ("-" | "x") SQUARE       intermediate captures in order, then the
//!                                                    destination: "-" empty, "x" capture
//!           | ("x!" SQUARE)+                         captures, then back to the origin (igui)
//!           | "-" ORIGIN                             board-changing pass of a piece (FiD-7n)
//! annot    := ("!" SQUARE)* ["*"] ["+" | "="]        burned enemies in the order they burn;
//!                                                    "*": the mover is burned (suicide);
//!                                                    "+": promotes; "=": could have, does not
//! SQUARE   := Hodges square, file 1..16 then rank a..p (9p, 16a)
//! ```
//!
//! Examples: `P-9k`, `Nx7d=`, `R16n-16k`, `Lnx3h-2i` (hit and run), `Lnx3hx2i` (double
//! capture), `Lnx!9d` (igui), `FiDx!4ex!5e` (house-rule area move capturing twice and
//! returning), `FiD-7n!6m` (a Fire Demon's pass that burns), `G-5f*` (suicide), and burns
//! come before the promotion suffix: `WB-5e!4d!6d+` (a Water Buffalo promoting to Fire Demon).
//!
//! Reading is forgiving where it cannot hurt: spaces anywhere, any letter case (`LN x!8e`),
//! W's alternative abbreviations `FK` (Queen) and `Ky` (Kirin), the moves-as abbreviation of a
//! promoted-only type (`CP` for `+DE`, `HT` for `+CS`), `@@@@` for `pass`, annotations in any
//! order and optional. What is written must be true: a burn list or `*` that does not match
//! the move, `x` onto an empty square or `-` onto an enemy is refused with the reason. An
//! omitted `+`/`=` is accepted when only one version is legal (compulsory promotion, a piece
//! that cannot promote) and ambiguous otherwise.
//!
//! Move identity is that of RULES.md §7.2 (origin, captures in order, destination, promotion);
//! burns and `*` are consequences, shown for the reader, never needed to identify a move.

use crate::movegen;
use crate::moves::{Move, MoveList};
use crate::notation::MoveError;
use crate::piece::{Kind, Piece};
use crate::position::Position;
use crate::powers::MoveTable;
use crate::square::Square;

/// Hodges text of `m`, a legal move of `pos`.
pub fn to_hodges(pos: &Position, t: &MoveTable, m: Move) -> String {
    HodgesBook::new(pos, t).write(m)
}

/// Parse a Hodges move and find it among the legal moves of `pos`.
pub fn parse_hodges(pos: &Position, t: &MoveTable, text: &str) -> Result<Move, MoveError> {
    HodgesBook::new(pos, t).read(text)
}

/// Shape of a move's text once the piece is known: the captures on the way and, unless the
/// move returns to its origin (written `x!`, destination implied), the destination.
type ShapeKey = (Option<Square>, Option<Square>, Option<Square>);

/// The legal moves of one position, indexed for writing and reading Hodges text. Building it
/// costs one sort; then [`HodgesBook::write`] and [`HodgesBook::read`] take a binary search
/// each instead of a scan, which matters when every move of a position is written (a move
/// list, a GUI) — Tenjiku positions have hundreds of moves.
pub struct HodgesBook<'a> {
    pos: &'a Position,
    t: &'a MoveTable,
    /// The legal moves, sorted.
    sorted: Vec<Move>,
    /// (shape, move) for every legal move but the null pass, sorted by shape.
    by_shape: Vec<(ShapeKey, Move)>,
}

impl<'a> HodgesBook<'a> {
    /// Index the legal moves of `pos` (generated here).
    pub fn new(pos: &'a Position, t: &'a MoveTable) -> HodgesBook<'a> {
        let mut list = MoveList::new();
        movegen::generate(pos, t, &mut list);
        HodgesBook::with_moves(pos, t, list.as_slice())
    }

    /// Index a list of moves already generated for `pos` (they must be its legal moves).
    pub fn with_moves(pos: &'a Position, t: &'a MoveTable, legal: &[Move]) -> HodgesBook<'a> {
        let mut sorted = legal.to_vec();
        sorted.sort_unstable();
        let mut by_shape: Vec<(ShapeKey, Move)> =
            sorted.iter().filter(|m| !m.is_null_pass()).map(|&m| (shape_key(m), m)).collect();
        by_shape.sort_unstable();
        HodgesBook { pos, t, sorted, by_shape }
    }

    /// Whether `m` is legal here.
    pub fn contains(&self, m: Move) -> bool {
        self.sorted.binary_search(&m).is_ok()
    }

    /// The legal moves whose text has this shape (any piece, any promotion).
    fn with_shape(&self, key: ShapeKey) -> impl Iterator<Item = Move> + '_ {
        let lo = self.by_shape.partition_point(|e| e.0 < key);
        self.by_shape[lo..].iter().take_while(move |e| e.0 == key).map(|e| e.1)
    }

    /// Hodges text of `m`. A move that is not legal here gets no burns, no `*` and no `=`;
    /// one whose origin is empty falls back to its CECP text.
    pub fn write(&self, m: Move) -> String {
        let pos = self.pos;
        if m.is_null_pass() {
            return "pass".to_string();
        }
        let (Some(from), Some(to)) = (m.from(), m.to()) else {
            return crate::notation::to_cecp(m);
        };
        let Some(piece) = pos.piece_at(from) else {
            return crate::notation::to_cecp(m);
        };
        let mut s = piece.abbr();
        // The origin is needed when a same-abbreviation piece elsewhere has a move written
        // alike (promotion ignored, so that `=`/no-suffix texts never become ambiguous either).
        let needs_origin = self
            .with_shape(shape_key(m))
            .any(|o| o.from().is_some_and(|f| f != from && pos.piece_at(f) == Some(piece)));
        if needs_origin {
            s.push_str(&from.hodges());
        }
        if m.is_piece_pass() {
            s.push('-');
            s.push_str(&from.hodges());
        } else if m.returns_home() {
            for v in m.via() {
                s.push_str("x!");
                s.push_str(&v.hodges());
            }
        } else {
            for v in m.via() {
                s.push('x');
                s.push_str(&v.hodges());
            }
            s.push(if captures_at_destination(pos, m) { 'x' } else { '-' });
            s.push_str(&to.hodges());
        }
        if self.contains(m) {
            let (burns, suicide) = consequences(pos, self.t, m);
            for b in burns {
                s.push('!');
                s.push_str(&b.hodges());
            }
            if suicide {
                s.push('*');
            }
        }
        if m.promotes() {
            s.push('+');
        } else if self.contains(m.with_promotion(true)) {
            s.push('=');
        }
        s
    }
}

fn shape_key(m: Move) -> ShapeKey {
    let mut v = m.via();
    let (a, b) = (v.next(), v.next());
    (a, b, if m.returns_home() { None } else { m.to() })
}

/// Whether the final leg of `m` captures: an enemy stands on the destination, and the
/// destination is neither the origin nor a square already emptied by an earlier leg.
fn captures_at_destination(pos: &Position, m: Move) -> bool {
    let (Some(from), Some(to)) = (m.from(), m.to()) else { return false };
    let (Some(mover), Some(target)) = (pos.piece_at(from), pos.piece_at(to)) else { return false };
    to != from && target.color() != mover.color() && !m.via().any(|v| v == to)
}

/// Burned enemy squares (in burning order) and whether the mover itself burned. `m` must be
/// legal in `pos`.
fn consequences(pos: &Position, t: &MoveTable, m: Move) -> (Vec<Square>, bool) {
    let mut after = *pos;
    let eff = after.play(t, m);
    let mut burns: Vec<Square> = eff.burned().map(|(s, _)| s).collect();
    if eff.mover_burned {
        burns.pop(); // the mover's own burn is listed last; it is written '*'
    }
    (burns, eff.mover_burned)
}

/// One leg of a written move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Leg {
    /// `-sq`: to an empty square (or the piece's own square for a pass).
    Step(Square),
    /// `xsq`: capture on the square (and stand there, or continue).
    Capture(Square),
    /// `x!sq`: capture on the square and come back (igui).
    CaptureReturn(Square),
}

/// The syntax of a Hodges move, before it is matched against a position.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Written {
    null_pass: bool,
    /// Abbreviation as the table spells it, `+` first when written promoted.
    abbr: String,
    origin: Option<Square>,
    legs: Vec<Leg>,
    burns: Vec<Square>,
    suicide: bool,
    promote: Option<bool>,
}

const EXAMPLES: &str = "e.g. 'P-9k', 'Nx7d=', 'R16n-16k', 'Lnx!9d', 'Lnx3hx2i', 'FiD-5f!4e!6e' or 'pass'";

/// A Hodges square starting at `c[i]`: one or two digits then a rank letter. Returns the
/// square and the characters used.
fn square_at(c: &[char], i: usize) -> Option<(Square, usize)> {
    let mut n = 0;
    while n < 2 && c.get(i + n).is_some_and(|d| d.is_ascii_digit()) {
        n += 1;
    }
    let letter = c.get(i + n).filter(|l| l.is_ascii_alphabetic())?;
    if n == 0 {
        return None;
    }
    let text: String = c[i..i + n].iter().chain(std::iter::once(letter)).collect();
    Square::parse_hodges(&text).map(|s| (s, n + 1))
}

/// The table's spelling of a written abbreviation (any case; W's `FK`, `Ky` too), if any.
fn canonical_abbr(letters: &str) -> Option<&'static str> {
    let letters = match letters.to_ascii_uppercase().as_str() {
        "FK" => "Q",
        "KY" => "Kr",
        _ => letters,
    };
    Kind::ALL.iter().map(|k| k.info().abbr).find(|a| a.eq_ignore_ascii_case(letters))
}

/// Whether `p` is the piece a written (canonical, `+` when promoted) abbreviation names.
fn abbr_names(p: Piece, written: &str) -> bool {
    let (plus, letters) = match written.strip_prefix('+') {
        Some(rest) => (true, rest),
        None => (false, written),
    };
    if plus == p.promoted() && p.start_kind().info().abbr.eq_ignore_ascii_case(letters) {
        return true;
    }
    // A promoted-only type may be named by what it moves as: CP = +DE, HT = +CS.
    !plus && p.promoted() && !p.kind().is_start_kind() && p.kind().info().abbr.eq_ignore_ascii_case(letters)
}

/// Read the syntax of a Hodges move (no position needed).
/// One pass over the text in the order of the notation (piece, origin, legs, destination,
/// burns, promotion mark), each step with its own error message; about 100 lines, kept as one
/// reading of the grammar.
fn parse_syntax(text: &str) -> Result<Written, MoveError> {
    let shown = text.trim();
    let bad = |why: String| MoveError::Malformed { text: shown.to_string(), why };
    let c: Vec<char> = text.chars().filter(|ch| !ch.is_whitespace()).collect();
    if c.is_empty() {
        return Err(bad(format!("empty; expected a move, {EXAMPLES}")));
    }
    let compact: String = c.iter().collect::<String>().to_ascii_lowercase();
    if compact == "pass" || compact == "@@@@" {
        return Ok(Written { null_pass: true, ..Written::default() });
    }
    let mut i = 0;
    let plus = c[0] == '+';
    if plus {
        i += 1;
    }
    let start = i;
    while i < c.len() && c[i].is_ascii_alphabetic() {
        i += 1;
    }
    // No abbreviation contains an 'x', so a trailing one is the capture sign (`Nx7d`).
    if i - start > 1 && matches!(c[i - 1], 'x' | 'X') {
        i -= 1;
    }
    let letters: String = c[start..i].iter().collect();
    if letters.is_empty() {
        return Err(bad(format!("expected a piece abbreviation (P, Ln, FiD, ...) at the start, {EXAMPLES}")));
    }
    let Some(abbr) = canonical_abbr(&letters) else {
        return Err(bad(format!(
            "unknown piece '{letters}'; expected one of K GG VG RG BG FEg Q SE HF WB CS FiD LH Ln DK DH R B Kr Ph DE \
             BT FL G S C VM SM RC VS SS L N I D P (promoted: '+' before it)"
        )));
    };
    let abbr = if plus { format!("+{abbr}") } else { abbr.to_string() };
    let mut origin = None;
    if c.get(i).is_some_and(|d| d.is_ascii_digit()) {
        let (sq, n) =
            square_at(&c, i).ok_or_else(|| bad(format!("expected an origin square (1a..16p) after '{letters}'")))?;
        origin = Some(sq);
        i += n;
    }
    let mut legs = Vec::new();
    while let Some(&ch) = c.get(i) {
        let (sign, skip) = match ch {
            '-' => ("-", 1),
            'x' | 'X' if c.get(i + 1) == Some(&'!') => ("x!", 2),
            'x' | 'X' => ("x", 1),
            _ => break,
        };
        let (sq, n) =
            square_at(&c, i + skip).ok_or_else(|| bad(format!("expected a square (1a..16p) after '{sign}'")))?;
        legs.push(match sign {
            "-" => Leg::Step(sq),
            "x!" => Leg::CaptureReturn(sq),
            _ => Leg::Capture(sq),
        });
        if legs.len() > 3 {
            return Err(bad("more than three legs (at most two intermediate captures)".into()));
        }
        i += skip + n;
    }
    if legs.is_empty() {
        return Err(bad(format!("expected '-' or 'x' and a square after the piece, {EXAMPLES}")));
    }
    let returns = legs.iter().filter(|l| matches!(l, Leg::CaptureReturn(_))).count();
    if returns > 0 && returns < legs.len() {
        return Err(bad("'x!' (capture and return) is written for every capture of a move that returns, \
                        and for nothing else"
            .into()));
    }
    if returns > 2 {
        return Err(bad("at most two captures before returning".into()));
    }
    if legs[..legs.len() - 1].iter().any(|l| matches!(l, Leg::Step(_))) {
        return Err(bad("only the last leg may be a '-' move; earlier legs are captures 'xSQUARE'".into()));
    }
    let mut burns = Vec::new();
    let mut suicide = false;
    let mut promote = None;
    while let Some(&ch) = c.get(i) {
        match ch {
            '!' => {
                let (sq, n) =
                    square_at(&c, i + 1).ok_or_else(|| bad("expected a burned square (1a..16p) after '!'".into()))?;
                if burns.len() >= 8 {
                    return Err(bad("more than eight burned squares".into()));
                }
                burns.push(sq);
                i += 1 + n;
                continue;
            }
            '*' if !suicide => suicide = true,
            '+' | '=' if promote.is_none() => promote = Some(ch == '+'),
            _ => {
                return Err(bad(format!(
                    "unexpected '{ch}' after the move; only burns '!SQUARE', '*' and one '+' or '=' may follow"
                )))
            }
        }
        i += 1;
    }
    Ok(Written { null_pass: false, abbr, origin, legs, burns, suicide, promote })
}

/// "Lion (Ln)", "promoted Pawn (+P)": a piece for messages.
fn describe(p: Piece) -> String {
    let name = p.start_kind().info().name;
    if p.promoted() {
        format!("promoted {name} ({})", p.abbr())
    } else {
        format!("{name} ({})", p.abbr())
    }
}

impl HodgesBook<'_> {
    /// Parse a Hodges move and find it among the legal moves.
    ///
    /// The candidate legal moves are narrowed step by step (piece, origin, destination, legs,
    /// burns, promotion), each step able to fail with its own reason, so the function reads as
    /// that sequence (about 125 lines) rather than a set of helpers passing the candidates on.
    pub fn read(&self, text: &str) -> Result<Move, MoveError> {
        let (pos, t) = (self.pos, self.t);
        let w = parse_syntax(text)?;
        let shown = text.trim().to_string();
        let illegal = |why: String| MoveError::Illegal { text: shown.clone(), why };
        if self.sorted.is_empty() {
            return Err(illegal("there are no legal moves: the game is over".into()));
        }
        let null_pass = self.contains(Move::NULL_PASS);
        if w.null_pass {
            if null_pass {
                return Ok(Move::NULL_PASS);
            }
            let piece_passes: Vec<String> =
                self.sorted.iter().filter(|m| m.is_piece_pass()).map(|&m| self.write(m)).collect();
            return Err(illegal(if piece_passes.is_empty() {
                "no piece can pass here".into()
            } else {
                format!("every pass here changes the board; write it as the piece's move: {}", piece_passes.join(", "))
            }));
        }
        let us = pos.side_to_move();
        let named = |p: Piece| p.color() == us && abbr_names(p, &w.abbr);
        if let Some(o) = w.origin {
            match pos.piece_at(o) {
                None => return Err(illegal(format!("there is no piece on {}", o.hodges()))),
                Some(p) if p.color() != us => {
                    let (whose, mover) = (p.color().name(), us.name());
                    let why = format!("the piece on {} is {whose}'s {}; {mover} is to move", o.hodges(), describe(p));
                    return Err(illegal(why));
                }
                Some(p) if !named(p) => {
                    return Err(illegal(format!("the piece on {} is a {}, not a {}", o.hodges(), describe(p), w.abbr)))
                }
                Some(_) => {}
            }
        }
        let mover_ok =
            |m: &Move| m.from().is_some_and(|f| w.origin.is_none_or(|o| o == f) && pos.piece_at(f).is_some_and(named));
        let mut via: Vec<Square> = w
            .legs
            .iter()
            .filter_map(|l| match *l {
                Leg::Capture(s) | Leg::CaptureReturn(s) => Some(s),
                Leg::Step(_) => None,
            })
            .collect();
        // For `-`/`x` endings the last leg is the destination, not a capture on the way.
        let (dest, dest_capture) = match w.legs.last() {
            Some(Leg::Capture(s)) => {
                via.pop();
                (Some(*s), true)
            }
            Some(Leg::Step(s)) => (Some(*s), false),
            Some(Leg::CaptureReturn(_)) | None => (None, false),
        };
        let (v0, v1) = (via.first().copied(), via.get(1).copied());
        let mut cands: Vec<Move> = self.with_shape((v0, v1, dest)).filter(mover_ok).collect();
        if cands.is_empty() {
            if let Some(d) = dest {
                // A return spelled out with its final leg (`Lnx9n-9o` from 9o) is the igui.
                cands = self.with_shape((v0, v1, None)).filter(|m| m.to() == Some(d) && mover_ok(m)).collect();
            }
        }
        if cands.is_empty() {
            // A pass typed as the piece's own square when passing changes nothing is `pass`.
            if let (true, true, Some(d)) = (null_pass, via.is_empty() && !dest_capture, dest) {
                let mut scratch = MoveList::new();
                if pos.piece_at(d).is_some_and(named)
                    && w.origin.is_none_or(|o| o == d)
                    && movegen::generate_piece(pos, t, d, &mut scratch)
                {
                    if !w.burns.is_empty() || w.suicide || w.promote == Some(true) {
                        return Err(illegal("this pass changes nothing: no burns, no '*', no '+'".into()));
                    }
                    return Ok(Move::NULL_PASS);
                }
            }
            return Err(illegal(why_not(pos, &w, &via, dest, dest_capture)));
        }
        // The capture sign of the final leg must be right.
        if let Some(d) = dest {
            let m0 = cands[0];
            if captures_at_destination(pos, m0) != dest_capture && !m0.returns_home() {
                return Err(illegal(if dest_capture {
                    format!("there is nothing to capture on {}: write '-{}'", d.hodges(), d.hodges())
                } else {
                    format!("{} holds an enemy piece: write 'x{}'", d.hodges(), d.hodges())
                }));
            }
        }
        if let Some(pr) = w.promote {
            cands.retain(|m| m.promotes() == pr);
            if cands.is_empty() {
                return Err(illegal(if pr {
                    "this move cannot promote".into()
                } else {
                    "promotion is compulsory here: write '+'".into()
                }));
            }
        }
        if cands.len() > 1 {
            let list: Vec<String> = cands.iter().map(|&m| self.write(m)).collect();
            return Err(MoveError::Ambiguous { text: shown.clone(), candidates: list.join(", ") });
        }
        let m = cands[0];
        let (burns, suicide) = consequences(pos, t, m);
        if !w.burns.is_empty() {
            let mut written = w.burns.clone();
            let mut actual = burns.clone();
            written.sort();
            written.dedup();
            actual.sort();
            if written != actual {
                let list: String = burns.iter().map(|s| format!("!{}", s.hodges())).collect();
                return Err(illegal(if burns.is_empty() {
                    "this move burns nothing".into()
                } else {
                    format!("this move burns {list}")
                }));
            }
        }
        if w.suicide && !suicide {
            return Err(illegal("the moving piece is not burned: no '*'".into()));
        }
        Ok(m)
    }
}

/// Why no legal move fits a well-formed text: the first fact that rules it out.
fn why_not(pos: &Position, w: &Written, via: &[Square], dest: Option<Square>, dest_capture: bool) -> String {
    let us = pos.side_to_move();
    if w.origin.is_none() && !pos.squares_of(us).any(|s| pos.piece_at(s).is_some_and(|p| abbr_names(p, &w.abbr))) {
        return format!("{} has no {} on the board", us.name(), w.abbr);
    }
    for &v in via {
        match pos.piece_at(v) {
            None => return format!("there is nothing to capture on {}", v.hodges()),
            Some(p) if p.color() == us => return format!("{} holds your own {}", v.hodges(), describe(p)),
            _ => {}
        }
    }
    if let Some(d) = dest {
        match pos.piece_at(d) {
            None if dest_capture && !via.contains(&d) => {
                return format!("there is nothing to capture on {}: write '-{}'", d.hodges(), d.hodges())
            }
            Some(p) if p.color() == us => {
                let own_square = w.origin.is_none_or(|o| o == d) && abbr_names(p, &w.abbr);
                return if own_square && via.is_empty() {
                    format!("the {} on {} cannot pass here", describe(p), d.hodges())
                } else {
                    format!("{} is occupied by your own {}", d.hodges(), describe(p))
                };
            }
            _ => {}
        }
    }
    let what = match (dest, via) {
        (Some(d), []) => format!("reach {}", d.hodges()),
        (None, [v]) => format!("capture on {} and return (igui)", v.hodges()),
        _ => "make this move".to_string(),
    };
    match w.origin.and_then(|o| pos.piece_at(o).map(|p| (o, p))) {
        Some((o, p)) => format!("the {} on {} cannot {what}", describe(p), o.hodges()),
        None => format!("no {} of {} can {what}", w.abbr, us.name()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::{parse_cecp, to_cecp};
    use crate::square::Color;
    use crate::Rules;
    use rand::Rng;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn sq(h: &str) -> Square {
        Square::parse_hodges(h).unwrap()
    }
    fn pc(k: Kind, c: Color) -> Piece {
        Piece::new(k, false, c)
    }
    /// An empty board with both Kings tucked away in the corners, plus `pieces`.
    fn setup(pieces: &[(&str, Piece)], side: Color) -> Position {
        let mut p = Position::empty();
        p.put(sq("16p"), pc(Kind::King, Color::Black));
        p.put(sq("1a"), pc(Kind::King, Color::White));
        for &(s, piece) in pieces {
            p.put(sq(s), piece);
        }
        p.set_side_to_move(side);
        p
    }
    fn table() -> MoveTable {
        MoveTable::new(&Rules::standard())
    }
    fn assert_text(pos: &Position, t: &MoveTable, m: Move, text: &str) {
        assert!(movegen::legal_moves(pos, t).contains(&m), "{m} not legal");
        assert_eq!(to_hodges(pos, t, m), text);
        assert_eq!(parse_hodges(pos, t, text), Ok(m), "{text}");
    }

    #[test]
    fn start_position_moves() {
        let t = table();
        let pos = Position::start();
        // Black's pawns stand on rank l (CECP rank 5): 9l-9k is CECP h5h6.
        let m = Move::new(sq("9l"), sq("9k"), false);
        assert_eq!(to_cecp(m), "h5h6");
        assert_text(&pos, &t, m, "P-9k");
        for text in ["p-9k", "P - 9k", " P-9K ", "P9l-9k"] {
            assert_eq!(parse_hodges(&pos, &t, text), Ok(m), "{text}");
        }
        // Every start move round-trips; the Dogs stand on 12k and 5k.
        for m in movegen::legal_moves(&pos, &t) {
            let text = to_hodges(&pos, &t, m);
            assert_eq!(parse_hodges(&pos, &t, &text), Ok(m), "{text}");
        }
        assert_eq!(to_hodges(&pos, &t, Move::new(sq("12k"), sq("12j"), false)), "D-12j");
    }

    #[test]
    fn lion_igui_hit_and_run_and_double_capture() {
        let t = table();
        let (b, w) = (Color::Black, Color::White);
        let pos = setup(&[("9h", pc(Kind::Lion, b)), ("9g", pc(Kind::Pawn, w)), ("8f", pc(Kind::Pawn, w))], b);
        let igui = Move::with_via(sq("9h"), &[sq("9g")], sq("9h"), false);
        assert_text(&pos, &t, igui, "Lnx!9g");
        assert_eq!(to_cecp(igui), "h9h10,h10h9");
        let run = Move::with_via(sq("9h"), &[sq("9g")], sq("9f"), false);
        assert_text(&pos, &t, run, "Lnx9g-9f");
        let double = Move::with_via(sq("9h"), &[sq("9g")], sq("8f"), false);
        assert_text(&pos, &t, double, "Lnx9gx8f");
        assert_text(&pos, &t, Move::new(sq("9h"), sq("8f"), false), "Lnx8f");
        for (text, m) in [("LN x!9g", igui), ("ln x9g-9f", run), ("Ln 9h x 9g x 8f", double), ("Lnx9g-9h", igui)] {
            assert_eq!(parse_hodges(&pos, &t, text), Ok(m), "{text}");
        }
        // The Lion's pass leaves the board unchanged: `pass`, also typed as its own square.
        assert_eq!(to_hodges(&pos, &t, Move::NULL_PASS), "pass");
        for text in ["pass", "PASS", "@@@@", "Ln-9h"] {
            assert_eq!(parse_hodges(&pos, &t, text), Ok(Move::NULL_PASS), "{text}");
        }
        // Wrong capture signs and impossible captures are refused with a reason.
        for text in ["Ln-8f", "Lnx9f", "Lnx9fx8f", "Lnx!9f", "Ln-9e", "Lnx9gx8f!8e", "Lnx9g*"] {
            assert!(matches!(parse_hodges(&pos, &t, text), Err(MoveError::Illegal { .. })), "{text}");
        }
    }

    #[test]
    fn disambiguation_by_origin() {
        let t = table();
        let b = Color::Black;
        let pos = setup(&[("5h", pc(Kind::Gold, b)), ("3h", pc(Kind::Gold, b))], b);
        let m = Move::new(sq("5h"), sq("4h"), false);
        assert_text(&pos, &t, m, "G5h-4h");
        assert_text(&pos, &t, Move::new(sq("5h"), sq("6h"), false), "G-6h");
        match parse_hodges(&pos, &t, "G-4h") {
            Err(MoveError::Ambiguous { candidates, .. }) => {
                assert!(candidates.contains("G5h-4h") && candidates.contains("G3h-4h"), "{candidates}")
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(parse_hodges(&pos, &t, "G9h-8h"), Err(MoveError::Illegal { .. })));
        assert!(matches!(parse_hodges(&pos, &t, "G16p-15p"), Err(MoveError::Illegal { .. })));
        assert!(matches!(parse_hodges(&pos, &t, "S-4h"), Err(MoveError::Illegal { .. })));
    }

    #[test]
    fn promotion_taken_declined_and_compulsory() {
        let t = table();
        let (b, w) = (Color::Black, Color::White);
        let pos = setup(
            &[
                ("9f", pc(Kind::Pawn, b)),
                ("5f", pc(Kind::Lance, b)),
                ("4f", pc(Kind::Knight, b)),
                ("5d", pc(Kind::Pawn, w)),
            ],
            b,
        );
        let up = Move::new(sq("9f"), sq("9e"), true);
        assert_text(&pos, &t, up, "P-9e+");
        assert_text(&pos, &t, up.with_promotion(false), "P-9e=");
        assert!(matches!(parse_hodges(&pos, &t, "P-9e"), Err(MoveError::Ambiguous { .. })));
        // A capture entering the zone: Lx5d+ / Lx5d=.
        assert_text(&pos, &t, Move::new(sq("5f"), sq("5d"), false), "Lx5d=");
        // The Knight entering the zone may defer, also when capturing.
        assert_text(&pos, &t, Move::new(sq("4f"), sq("3d"), true), "N-3d+");
        assert_text(&pos, &t, Move::new(sq("4f"), sq("5d"), false), "Nx5d=");
        // A promoted Pawn moves as a Gold, is written '+P' and cannot promote again.
        let promoted = setup(&[("9f", pc(Kind::Pawn, b).promote())], b);
        assert_text(&promoted, &t, Move::new(sq("9f"), sq("9e"), false), "+P-9e");
        // A Lance reaching the last rank must promote: the suffix may be left out.
        let lance = setup(&[("5f", pc(Kind::Lance, b))], b);
        let m = Move::new(sq("5f"), sq("5a"), true);
        assert_text(&lance, &t, m, "L-5a+");
        assert_eq!(parse_hodges(&lance, &t, "L-5a"), Ok(m));
        assert!(matches!(parse_hodges(&lance, &t, "L-5a="), Err(MoveError::Illegal { .. })));
        assert!(matches!(parse_hodges(&lance, &t, "L-5g+"), Err(MoveError::Illegal { .. })));
        // Moves-as names of promoted-only types and W's alternatives are understood.
        let de = setup(&[("9h", pc(Kind::DrunkElephant, b).promote()), ("8h", pc(Kind::Queen, b))], b);
        assert_eq!(parse_hodges(&de, &t, "CP-9g"), Ok(Move::new(sq("9h"), sq("9g"), false)));
        assert_eq!(parse_hodges(&de, &t, "+DE-9g"), Ok(Move::new(sq("9h"), sq("9g"), false)));
        assert_eq!(parse_hodges(&de, &t, "FK-8g"), Ok(Move::new(sq("8h"), sq("8g"), false)));
        assert_eq!(parse_hodges(&de, &t, "q-8g"), Ok(Move::new(sq("8h"), sq("8g"), false)));
    }

    #[test]
    fn burns_suicide_and_board_changing_pass() {
        let t = table();
        let (b, w) = (Color::Black, Color::White);
        let pos = setup(&[("5h", pc(Kind::FireDemon, b)), ("4e", pc(Kind::Pawn, w)), ("6e", pc(Kind::Pawn, w))], b);
        let m = Move::new(sq("5h"), sq("5f"), false);
        assert_text(&pos, &t, m, "FiD-5f!4e!6e");
        for text in ["FiD-5f", "fid-5f!6e!4e", "FID - 5f ! 4e ! 6e"] {
            assert_eq!(parse_hodges(&pos, &t, text), Ok(m), "{text}");
        }
        for text in ["FiD-5f!4e", "FiD-5f!4e!6e!5e", "FiD-5f*", "FiD-5g!4e"] {
            assert!(matches!(parse_hodges(&pos, &t, text), Err(MoveError::Illegal { .. })), "{text}");
        }
        // A Fire Demon's pass next to an enemy burns it: written with its own square.
        let pass = setup(&[("5h", pc(Kind::FireDemon, b)), ("5g", pc(Kind::Pawn, w))], b);
        let m = Move::new(sq("5h"), sq("5h"), false);
        assert_text(&pass, &t, m, "FiD-5h!5g");
        assert_eq!(to_cecp(m), "l9l9");
        assert!(matches!(parse_hodges(&pass, &t, "pass"), Err(MoveError::Illegal { .. })));
        // Suicide: a Gold stepping next to an enemy Fire Demon is burned.
        let sui = setup(&[("5g", pc(Kind::Gold, b)), ("5e", pc(Kind::FireDemon, w))], b);
        let m = Move::new(sq("5g"), sq("5f"), false);
        assert_text(&sui, &t, m, "G-5f*");
        assert_eq!(parse_hodges(&sui, &t, "G-5f"), Ok(m));
        assert!(matches!(parse_hodges(&sui, &t, "G-6g*"), Err(MoveError::Illegal { .. })));
    }

    #[test]
    fn odd_input_never_panics() {
        let t = table();
        let pos = Position::start();
        let long = "Lnx".repeat(10_000);
        #[rustfmt::skip]
        let odd = [
            "", " ", "x!", "+", "-", "x", "!", "*", "=", "++P-9k", "P", "P-", "P-9", "P-99k", "P-0k", "P-17a",
            "P-9q", "Ln x!", "Lnx!", "Lnx!x!", "P-9k++", "P-9k+=", "P-9k**", "P-9k!", "P-9k!!", "Zz-9k", "獅子-9k",
            "P-9ｋ", "ñ", "🦁x!8e", "\u{0}", "9k", "-9k", "x9k", "Ln9o", "Ln9o9n", "Lnx9nx9mx9lx9k", "Lnx!9nx9m",
            "Ln-9n-9m", "Lnx!9nx!9mx!9l", "P-9k!1a!1a!1a!1a!1a!1a!1a!1a!1a", "pass+", "passx", long.as_str(),
            "P-9k extra", "+K-9o", "K-9k", "XX-1a", "X", "Px", "pX9k", "P-9k+!", "+", "++", "x!9k", "Lnx!9n!",
        ];
        for text in odd {
            match parse_hodges(&pos, &t, text) {
                Ok(m) => assert!(movegen::legal_moves(&pos, &t).contains(&m), "{text}"),
                Err(e) => assert!(!e.to_string().is_empty()),
            }
        }
        assert!(matches!(parse_hodges(&pos, &t, ""), Err(MoveError::Malformed { .. })));
        assert!(matches!(parse_hodges(&pos, &t, "Zz-9k"), Err(MoveError::Malformed { .. })));
        assert!(matches!(parse_hodges(&pos, &t, "K-9k"), Err(MoveError::Illegal { .. })));
        assert!(matches!(parse_hodges(&pos, &t, "pass"), Err(MoveError::Illegal { .. })));
        assert!(matches!(parse_hodges(&pos, &t, "Lnx!8e"), Err(MoveError::Illegal { .. })));
    }

    /// How often each form of the grammar was met in a round trip.
    #[derive(Debug, Default)]
    #[rustfmt::skip]
    struct Seen {
        moves: usize, igui: usize, multi_leg: usize, two_captures: usize, burns: usize, suicide: usize,
        promote: usize, decline: usize, origin: usize, null_pass: usize,
    }

    /// Every legal move of positions reached by seeded random play is written and read back
    /// to itself, in Hodges and in CECP form.
    fn round_trip(rules: Rules, games: u64, plies: usize, seed: u64) -> Seen {
        let t = MoveTable::new(&rules);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut list = MoveList::new();
        let mut seen = Seen::default();
        for _ in 0..games {
            let mut pos = Position::start();
            for _ in 0..plies {
                movegen::generate(&pos, &t, &mut list);
                if list.is_empty() {
                    break;
                }
                let legal = list.as_slice();
                let book = HodgesBook::with_moves(&pos, &t, legal);
                for &m in legal {
                    let text = book.write(m);
                    assert_eq!(book.read(&text), Ok(m), "{text} in {pos:?}");
                    assert_eq!(crate::notation::parse_cecp_in(&pos, legal, &to_cecp(m)), Ok(m));
                    seen.moves += 1;
                    seen.igui += m.returns_home() as usize;
                    seen.multi_leg += (m.via_count() > 0 && !m.returns_home()) as usize;
                    seen.two_captures += (m.via_count() == 2) as usize;
                    seen.burns += text.replace("x!", "").contains('!') as usize;
                    seen.suicide += text.contains('*') as usize;
                    seen.promote += text.ends_with('+') as usize;
                    seen.decline += text.ends_with('=') as usize;
                    let after_letters =
                        text.trim_start_matches('+').trim_start_matches(|c: char| c.is_ascii_alphabetic());
                    seen.origin +=
                        (!m.is_null_pass() && after_letters.starts_with(|c: char| c.is_ascii_digit())) as usize;
                    seen.null_pass += m.is_null_pass() as usize;
                }
                let m = legal[rng.gen_range(0..legal.len())];
                // The one-shot functions agree with the book (checked on the move played).
                assert_eq!(parse_hodges(&pos, &t, &to_hodges(&pos, &t, m)), Ok(m));
                pos.play(&t, m);
            }
        }
        seen
    }

    #[test]
    fn round_trip_random_games_standard_rules() {
        let seen = round_trip(Rules::standard(), 200, 150, 1);
        eprintln!("{seen:?}");
        assert!(seen.moves > 1_000_000);
        // (A board-changing pass is too rare in random play; a unit test above covers it.)
        let forms = [seen.igui, seen.multi_leg, seen.burns, seen.suicide, seen.promote, seen.decline];
        for n in forms.into_iter().chain([seen.origin, seen.null_pass]) {
            assert!(n > 0, "{seen:?}");
        }
    }

    #[test]
    fn round_trip_random_games_house_and_hachu_rules() {
        let house = round_trip(Rules::house(), 40, 150, 2);
        eprintln!("house {house:?}");
        assert!(house.moves > 10_000 && house.multi_leg > 0 && house.two_captures > 0, "{house:?}");
        let hachu = round_trip(Rules::hachu(), 20, 150, 3);
        eprintln!("hachu {hachu:?}");
        assert!(hachu.moves > 5_000);
        // parse_cecp with its own move generation agrees as well.
        let t = table();
        let pos = Position::start();
        for m in movegen::legal_moves(&pos, &t) {
            assert_eq!(parse_cecp(&pos, &t, &to_cecp(m)), Ok(m));
        }
    }
}
