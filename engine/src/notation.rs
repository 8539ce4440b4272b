//! CECP coordinate move text (RULES.md §16.3): `h4h13`, two legs `h8g9,g9g10`, igui
//! `h8h9,h9h8`, promotion suffix `+`, the board-neutral pass `@@@@`, a board-changing pass
//! `g3g3`.

use crate::movegen;
use crate::moves::{Move, MoveList};
use crate::position::Position;
use crate::powers::MoveTable;
use crate::square::Square;

/// Why a move text was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    #[error("malformed move '{text}': {why}")]
    Malformed { text: String, why: String },
    #[error("illegal move '{text}': {why}")]
    Illegal { text: String, why: String },
    #[error("ambiguous move '{text}': could be {candidates}")]
    Ambiguous { text: String, candidates: String },
}

/// CECP text of a move.
pub fn to_cecp(m: Move) -> String {
    if m.is_null_pass() {
        return "@@@@".to_string();
    }
    let from = m.from().unwrap();
    let to = m.to().unwrap();
    let mut s = String::with_capacity(16);
    let mut at = from;
    for v in m.via() {
        s.push_str(&at.cecp());
        s.push_str(&v.cecp());
        s.push(',');
        at = v;
    }
    s.push_str(&at.cecp());
    s.push_str(&to.cecp());
    if m.promotes() {
        s.push('+');
    }
    s
}

/// The parts of a CECP move text before it is matched against the position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CecpText {
    pub null_pass: bool,
    pub from: Option<Square>,
    pub via: Vec<Square>,
    pub to: Option<Square>,
    pub promote: bool,
}

/// Parse the syntax of a CECP move (no legality check).
pub fn parse_cecp_syntax(text: &str) -> Result<CecpText, MoveError> {
    let t = text.trim();
    let bad = |why: &str| MoveError::Malformed { text: t.to_string(), why: why.to_string() };
    if t == "@@@@" {
        return Ok(CecpText { null_pass: true, from: None, via: vec![], to: None, promote: false });
    }
    if t.is_empty() {
        return Err(bad("empty; expected e.g. 'h4h13', 'h8g9,g9g10', 'k4b13+' or '@@@@'"));
    }
    let (body, promote) = match t.strip_suffix('+') {
        Some(b) => (b, true),
        None => (t.strip_suffix('=').unwrap_or(t), false),
    };
    let legs: Vec<&str> = body.split(',').collect();
    if legs.len() > 3 {
        return Err(bad("more than three legs"));
    }
    let mut squares = Vec::new();
    for (i, leg) in legs.iter().enumerate() {
        let (a, n) = Square::parse_cecp_prefix(leg)
            .ok_or_else(|| bad(&format!("leg {} '{leg}' does not start with a square a1..p16", i + 1)))?;
        let b = Square::parse_cecp(&leg[n..])
            .ok_or_else(|| bad(&format!("leg {} '{leg}' does not end with a square a1..p16", i + 1)))?;
        if let Some(&prev) = squares.last() {
            if prev != a {
                return Err(bad(&format!("leg {} must start where the previous leg ended ({prev})", i + 1)));
            }
        } else {
            squares.push(a);
        }
        squares.push(b);
    }
    let from = squares[0];
    let to = *squares.last().unwrap();
    let via = squares[1..squares.len() - 1].to_vec();
    Ok(CecpText { null_pass: false, from: Some(from), via, to: Some(to), promote })
}

/// Parse a CECP move and find it among the legal moves of `pos`.
pub fn parse_cecp(pos: &Position, t: &MoveTable, text: &str) -> Result<Move, MoveError> {
    let mut list = MoveList::new();
    movegen::generate(pos, t, &mut list);
    parse_cecp_in(pos, list.as_slice(), text)
}

/// Parse a CECP move against a given list of legal moves.
pub fn parse_cecp_in(pos: &Position, legal: &[Move], text: &str) -> Result<Move, MoveError> {
    let p = parse_cecp_syntax(text)?;
    let t = text.trim().to_string();
    let illegal = |why: String| MoveError::Illegal { text: t.clone(), why };
    if p.null_pass {
        return legal
            .iter()
            .copied()
            .find(|m| m.is_null_pass())
            .ok_or_else(|| illegal("no piece can pass here without changing the board".into()));
    }
    let from = p.from.unwrap();
    let to = p.to.unwrap();
    let Some(piece) = pos.piece_at(from) else {
        return Err(illegal(format!("no piece on {from}")));
    };
    if piece.color() != pos.side_to_move() {
        return Err(illegal(format!("the piece on {from} is not the side to move's")));
    }
    // Legs that end on empty squares capture nothing: a GUI may send a lion's path that way.
    let via: Vec<Square> =
        p.via.iter().copied().filter(|&v| pos.piece_at(v).is_some_and(|x| x.color() != piece.color())).collect();
    let want = match via.len() {
        0 => Move::new(from, to, p.promote),
        1 | 2 => Move::with_via(from, &via, to, p.promote),
        _ => return Err(illegal("too many captures".into())),
    };
    if legal.contains(&want) {
        return Ok(want);
    }
    // A pass typed as a path out and back (or as `g3g3`) that changes nothing is `@@@@`.
    if from == to && via.is_empty() && !p.promote {
        if let Some(m) = legal.iter().copied().find(|m| m.is_null_pass()) {
            return Ok(m);
        }
    }
    let other = want.with_promotion(!p.promote);
    if legal.contains(&other) {
        return Err(illegal(if p.promote {
            "this move cannot promote".into()
        } else {
            "promotion is compulsory here: add '+'".into()
        }));
    }
    Err(illegal(format!("the {} on {from} cannot make this move", piece.kind().info().name)))
}

impl std::fmt::Debug for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", to_cecp(*self))
    }
}

impl std::fmt::Display for Move {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", to_cecp(*self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_16_3_move_text_forms() {
        let a = Square::parse_cecp("h8").unwrap();
        let b = Square::parse_cecp("g9").unwrap();
        let c = Square::parse_cecp("g10").unwrap();
        assert_eq!(to_cecp(Move::new(a, c, false)), "h8g10");
        assert_eq!(to_cecp(Move::with_via(a, &[b], c, true)), "h8g9,g9g10+");
        assert_eq!(to_cecp(Move::with_via(a, &[b], a, false)), "h8g9,g9h8");
        assert_eq!(to_cecp(Move::new(a, a, false)), "h8h8");
        assert_eq!(to_cecp(Move::NULL_PASS), "@@@@");
        let p = parse_cecp_syntax("h8g9,g9g10+").unwrap();
        assert_eq!((p.from, p.via.clone(), p.to, p.promote), (Some(a), vec![b], Some(c), true));
        for bad in ["", "h8", "h8g9,g8g10", "z1a1", "h8g9,g9g10,g10g11,g11g12", "h8g99"] {
            assert!(matches!(parse_cecp_syntax(bad), Err(MoveError::Malformed { .. })), "{bad}");
        }
    }
}
