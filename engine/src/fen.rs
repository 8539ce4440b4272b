//! FEN of RULES.md §16.2: HaChu/XBoard dressed letters, `+` for promoted pieces, side to move.

use crate::piece::{Kind, Piece, NUM_START_KINDS};
use crate::position::Position;
use crate::square::{Color, Square};

/// The start position (§3, §16.2).
pub const START_FEN: &str = "lnficsgekgscifnl/a1c!c!1txql!ot1c!c!1a/s'v'bhdw!d!q'h!d!w!dhbv's'/mvrf!e!b!r!v!q!r!b!e!f!rvm/pppppppppppppppp/4d'6d'4/16/16/16/16/4D'6D'4/PPPPPPPPPPPPPPPP/MVRF!E!B!R!Q!V!R!B!E!F!RVM/S'V'BHDW!D!H!Q'D!W!DHBV'S'/A1C!C!1TOL!QXT1C!C!1A/LNFICSGKEGSCIFNL b";

/// A FEN that could not be read: what was wrong and where (ranks are numbered 16 at the top
/// of the FEN down to 1).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    #[error("bad FEN: empty string; expected '<board> <b|w>'")]
    Empty,
    #[error("bad FEN: side to move '{found}' must be 'b' or 'w'")]
    BadSide { found: String },
    #[error("bad FEN: unexpected field '{found}' after the side to move")]
    ExtraField { found: String },
    #[error("bad FEN: {found} ranks, expected 16 separated by '/'")]
    RankCount { found: usize },
    #[error("bad FEN: rank {rank}: bad empty-square count '{text}'")]
    BadEmptyCount { rank: i32, text: String },
    #[error("bad FEN: rank {rank}: '+' without a piece letter")]
    PlusWithoutPiece { rank: i32 },
    #[error("bad FEN: rank {rank}: unexpected character '{found}'")]
    BadCharacter { rank: i32, found: char },
    #[error("bad FEN: rank {rank}: unknown piece '{letter}'")]
    UnknownPiece { rank: i32, letter: String },
    #[error("bad FEN: rank {rank}: '+{letter}' cannot be promoted")]
    NotPromotable { rank: i32, letter: String },
    #[error("bad FEN: rank {rank}: more than 16 files")]
    TooManyFiles { rank: i32 },
    #[error("bad FEN: rank {rank}: {found} files, expected 16")]
    FileCount { rank: i32, found: i32 },
}

fn start_kind_of_letter(letter: &str) -> Option<Kind> {
    let up = letter.to_ascii_uppercase();
    Kind::ALL[..NUM_START_KINDS].iter().copied().find(|k| k.info().fen == up)
}

/// Parse a FEN. The side field may be omitted (Black to move).
pub fn parse_fen(fen: &str) -> Result<Position, FenError> {
    let mut fields = fen.split_whitespace();
    let board = fields.next().ok_or_else(|| FenError::Empty)?;
    let side = match fields.next() {
        None | Some("b") => Color::Black,
        Some("w") => Color::White,
        Some(s) => return Err(FenError::BadSide { found: s.to_string() }),
    };
    if let Some(extra) = fields.next() {
        return Err(FenError::ExtraField { found: extra.to_string() });
    }
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 16 {
        return Err(FenError::RankCount { found: ranks.len() });
    }
    let mut pos = Position::empty();
    for (ri, text) in ranks.iter().enumerate() {
        let rank = 15 - ri as i32;
        let rank_name = rank + 1;
        let b = text.as_bytes();
        let mut file = 0i32;
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            if c.is_ascii_digit() {
                let mut j = i;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                let n: i32 = text[i..j].parse().unwrap_or(99);
                if n == 0 || n > 16 {
                    return Err(FenError::BadEmptyCount { rank: rank_name, text: text[i..j].to_string() });
                }
                file += n;
                i = j;
                continue;
            }
            let promoted = c == b'+';
            if promoted {
                i += 1;
            }
            let Some(&l) = b.get(i) else {
                return Err(FenError::PlusWithoutPiece { rank: rank_name });
            };
            if !l.is_ascii_alphabetic() {
                return Err(FenError::BadCharacter { rank: rank_name, found: l as char });
            }
            let mut len = 1;
            if matches!(b.get(i + 1), Some(b'!') | Some(b'\'')) {
                len = 2;
            }
            let letter = &text[i..i + len];
            let kind = start_kind_of_letter(letter)
                .ok_or_else(|| FenError::UnknownPiece { rank: rank_name, letter: letter.to_string() })?;
            let color = if l.is_ascii_uppercase() { Color::Black } else { Color::White };
            if promoted && kind.info().promotes_to.is_none() {
                return Err(FenError::NotPromotable { rank: rank_name, letter: letter.to_string() });
            }
            if file >= 16 {
                return Err(FenError::TooManyFiles { rank: rank_name });
            }
            let sq = Square::new(file, rank).unwrap();
            pos.put(sq, Piece::new(kind, promoted, color));
            file += 1;
            i += len;
        }
        if file != 16 {
            return Err(FenError::FileCount { rank: rank_name, found: file });
        }
    }
    pos.set_side_to_move(side);
    Ok(pos)
}

/// Write a FEN.
pub fn to_fen(pos: &Position) -> String {
    let mut s = String::with_capacity(200);
    for rank in (0..16).rev() {
        let mut empty = 0;
        for file in 0..16 {
            match pos.piece_at(Square::new(file, rank).unwrap()) {
                None => empty += 1,
                Some(p) => {
                    if empty > 0 {
                        s.push_str(&empty.to_string());
                        empty = 0;
                    }
                    if p.promoted() {
                        s.push('+');
                    }
                    let l = p.start_kind().info().fen;
                    if p.color() == Color::Black {
                        s.push_str(l);
                    } else {
                        s.push_str(&l.to_ascii_lowercase());
                    }
                }
            }
        }
        if empty > 0 {
            s.push_str(&empty.to_string());
        }
        if rank > 0 {
            s.push('/');
        }
    }
    s.push(' ');
    s.push(if pos.side_to_move() == Color::Black { 'b' } else { 'w' });
    s
}

impl Position {
    /// The start position of RULES.md §3.
    pub fn start() -> Position {
        Position::from_fen(START_FEN).expect("start FEN parses")
    }
    pub fn from_fen(fen: &str) -> Result<Position, FenError> {
        parse_fen(fen)
    }
    pub fn to_fen(&self) -> String {
        to_fen(self)
    }
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", to_fen(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_3_start_position_matches_key_squares() {
        let p = Position::start();
        let at = |h: &str| p.piece_at(Square::parse_hodges(h).unwrap()).unwrap();
        assert_eq!(at("9p").kind(), Kind::King);
        assert_eq!(at("9p").color(), Color::Black);
        assert_eq!(at("8p").kind(), Kind::DrunkElephant);
        assert_eq!(at("9o").kind(), Kind::Lion);
        assert_eq!(at("8o").kind(), Kind::Queen);
        assert_eq!(at("10o").kind(), Kind::Kirin);
        assert_eq!(at("7o").kind(), Kind::Phoenix);
        assert_eq!(at("9n").kind(), Kind::LionHawk);
        assert_eq!(at("8n").kind(), Kind::FreeEagle);
        assert_eq!(at("10n").kind(), Kind::FireDemon);
        assert_eq!(at("7n").kind(), Kind::FireDemon);
        assert_eq!(at("9m").kind(), Kind::GreatGeneral);
        assert_eq!(at("8m").kind(), Kind::ViceGeneral);
        assert_eq!(at("12k").kind(), Kind::Dog);
        assert_eq!(at("5k").kind(), Kind::Dog);
        assert_eq!(at("8a").kind(), Kind::King);
        assert_eq!(at("8a").color(), Color::White);
        assert_eq!(at("9a").kind(), Kind::DrunkElephant);
        assert_eq!(at("8b").kind(), Kind::Lion);
        assert_eq!(at("9c").kind(), Kind::FreeEagle);
        assert_eq!(at("8d").kind(), Kind::GreatGeneral);
        assert_eq!(at("12f").kind(), Kind::Dog);
        assert_eq!(p.piece_count(Color::Black), 78);
        assert_eq!(p.piece_count(Color::White), 78);
        assert_eq!(p.side_to_move(), Color::Black);
        // White is the 180° rotation of Black.
        assert_eq!(p.mirrored().to_fen().replace(" w", " b"), p.to_fen());
    }

    #[test]
    fn rules_16_2_fen_round_trips_and_promoted_pieces() {
        assert_eq!(to_fen(&Position::start()), START_FEN);
        let f = "16/16/16/16/16/16/16/16/16/16/16/16/16/16/7+P+R!7/7K1k6 w";
        let p = parse_fen(f).unwrap();
        assert_eq!(to_fen(&p), f);
        let pp = p.piece_at(Square::parse_cecp("h2").unwrap()).unwrap();
        assert_eq!(pp.kind(), Kind::Gold);
        assert!(!pp.can_promote());
        assert_eq!(p.piece_at(Square::parse_cecp("i2").unwrap()).unwrap().kind(), Kind::GreatGeneral);
        assert_eq!(p.hash(), p.compute_hash());
    }

    #[test]
    fn rules_16_2_bad_fens_name_the_problem() {
        let cases = [
            ("", "empty"),
            ("16/16 b", "2 ranks"),
            ("16/16/16/16/16/16/16/16/16/16/16/16/16/16/16/15 b", "rank 1: 15 files"),
            ("16/16/16/16/16/16/16/16/16/16/16/16/16/16/16/15Z b", "unknown piece 'Z'"),
            ("16/16/16/16/16/16/16/16/16/16/16/16/16/16/16/16 x", "side to move"),
            ("16/16/16/16/16/16/16/16/16/16/16/16/16/16/16/+K15 b", "cannot be promoted"),
            ("17/16/16/16/16/16/16/16/16/16/16/16/16/16/16/16 b", "empty-square count"),
            ("16/16/16/16/16/16/16/16/16/16/16/16/16/16/16/16K b", "more than 16"),
        ];
        for (f, want) in cases {
            let e = parse_fen(f).unwrap_err().to_string();
            assert!(e.contains(want), "{f:?}: {e}");
            assert!(!e.contains('\n'));
        }
    }
}
