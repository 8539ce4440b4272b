//! What the page is shown of a game: the JSON views of `docs/web-api.md`, built from the rules
//! core only (the page never decides legality).

use engine::hodges::HodgesBook;
use engine::notation;
use engine::{generate_for, Color, Game, Move, MoveList, Piece, Position, Square};
use serde::Serialize;

/// A piece on the board.
#[derive(Serialize, Clone, Debug)]
pub struct PieceView {
    pub sq: String,
    pub hodges: String,
    pub abbr: String,
    pub name: &'static str,
    pub kanji: &'static str,
    pub moves_as: &'static str,
    pub color: &'static str,
    pub promoted: bool,
    pub royal: bool,
}

/// A move's names and squares (`from`, the `via` squares captured on the way, `to`; no squares
/// for the null pass).
#[derive(Serialize, Clone, Debug)]
pub struct MovePath {
    #[serde(rename = "move")]
    pub cecp: String,
    pub hodges: String,
    pub from: Option<String>,
    pub via: Vec<String>,
    pub to: Option<String>,
}

impl MovePath {
    fn new(m: Move, hodges: String) -> MovePath {
        MovePath {
            cecp: notation::to_cecp(m),
            hodges,
            from: m.from().map(|s| s.cecp()),
            via: names(m.via()),
            to: m.to().map(|s| s.cecp()),
        }
    }
}

/// A legal move, with what it would remove from the board.
#[derive(Serialize, Clone, Debug)]
pub struct MoveView {
    #[serde(flatten)]
    pub path: MovePath,
    pub promote: bool,
    pub pass: bool,
    pub null_pass: bool,
    pub captures: Vec<String>,
    pub burns: Vec<String>,
}

/// A square and the piece that stood there.
#[derive(Serialize, Clone, Debug)]
pub struct Removed {
    pub sq: String,
    pub abbr: String,
}

/// The move that led to the shown position.
#[derive(Serialize, Clone, Debug)]
pub struct LastMove {
    #[serde(flatten)]
    pub path: MovePath,
    pub captured: Vec<Removed>,
    pub burned: Vec<Removed>,
}

/// One entry of the move list.
#[derive(Serialize, Clone, Debug)]
pub struct ListedMove {
    pub ply: usize,
    #[serde(rename = "move")]
    pub cecp: String,
    pub hodges: String,
    pub color: &'static str,
}

/// What one side threatens now (as if it were to move).
#[derive(Serialize, Clone, Debug, Default)]
pub struct Threats {
    /// Enemy pieces this side could capture or burn with one move.
    pub capturable: Vec<String>,
    /// Squares this side's Fire Demons would burn with some move.
    pub burn_zones: Vec<String>,
    /// This side's pieces that could take an enemy royal with one move.
    pub royal_attackers: Vec<String>,
}

#[derive(Serialize, Clone, Debug)]
pub struct SideThreats {
    pub black: Threats,
    pub white: Threats,
}

#[derive(Serialize, Clone, Debug)]
pub struct Taken {
    pub black: Vec<String>,
    pub white: Vec<String>,
}

#[derive(Serialize, Clone, Debug)]
pub struct OutcomeView {
    pub result: &'static str,
    pub reason: String,
}

/// The position part of a view: everything the rules say about a game at one ply.
#[derive(Serialize, Clone, Debug)]
pub struct PositionView {
    pub ply: usize,
    pub fen: String,
    pub side_to_move: &'static str,
    pub in_check: bool,
    pub outcome: Option<OutcomeView>,
    pub board: Vec<PieceView>,
    pub legal: Vec<MoveView>,
    pub last: Option<LastMove>,
    pub moves: Vec<ListedMove>,
    pub taken: Taken,
    pub threats: SideThreats,
}

pub fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

fn piece_view(sq: Square, p: Piece) -> PieceView {
    let info = p.kind().info();
    PieceView {
        sq: sq.cecp(),
        hodges: sq.hodges(),
        abbr: p.abbr(),
        name: p.start_kind().info().name,
        kanji: info.kanji,
        moves_as: info.name,
        color: color_name(p.color()),
        promoted: p.promoted(),
        royal: p.kind().is_royal(),
    }
}

fn names(squares: impl Iterator<Item = Square>) -> Vec<String> {
    squares.map(|s| s.cecp()).collect()
}

/// A legal move with its consequences, found by playing it on a copy of the position.
fn move_view(pos: &Position, game: &Game, book: &HodgesBook, m: Move) -> MoveView {
    let mut after = *pos;
    let effect = after.play(game.table(), m);
    MoveView {
        path: MovePath::new(m, book.write(m)),
        promote: m.promotes(),
        pass: m.is_piece_pass(),
        null_pass: m.is_null_pass(),
        captures: names(effect.captured().map(|(s, _)| s)),
        burns: names(effect.burned().map(|(s, _)| s)),
    }
}

/// What `us` could do to the other side with one move, were it `us`'s turn.
fn threats(game: &Game, us: Color) -> Threats {
    let pos = game.position();
    let mut list = MoveList::new();
    generate_for(pos, game.table(), us, &mut list);
    let mut capturable = [false; 256];
    let mut burn_zone = [false; 256];
    let mut attacker = [false; 256];
    let mut from_us = *pos;
    from_us.set_side_to_move(us);
    for &m in list.iter() {
        let mut after = from_us;
        let effect = after.play(game.table(), m);
        for (s, p) in effect.captured().chain(effect.burned()) {
            if p.color() != us {
                capturable[s.index()] = true;
                if p.kind().is_royal() {
                    if let Some(f) = m.from() {
                        attacker[f.index()] = true;
                    }
                }
            }
        }
        for (s, _) in effect.burned() {
            burn_zone[s.index()] = true;
        }
        // A Fire Demon's burn zone includes empty squares and own pieces' squares too: the
        // squares next to each destination that burning would reach.
        if let (Some(f), Some(t)) = (m.from(), m.to()) {
            if from_us.piece_at(f).is_some_and(|p| p.kind() == engine::Kind::FireDemon) {
                for s in Square::all().filter(|s| s.distance(t) == 1 && *s != f) {
                    if after.piece_at(s).is_none_or(|p| p.color() != us) {
                        burn_zone[s.index()] = true;
                    }
                }
            }
        }
    }
    let pick = |marks: &[bool; 256]| names(Square::all().filter(|s| marks[s.index()]));
    Threats { capturable: pick(&capturable), burn_zones: pick(&burn_zone), royal_attackers: pick(&attacker) }
}

/// The view of `game` as it stands (its last ply shown as the last move). `legal_for`: the
/// side whose legal moves are listed (`None`: none, e.g. while the engine is to move).
pub fn position_view(game: &Game, legal_for: Option<Color>) -> PositionView {
    let pos = game.position();
    let book = HodgesBook::new(pos, game.table());
    let side = pos.side_to_move();
    let legal = match legal_for {
        Some(c) if c == side && !game.is_over() => {
            game.legal_moves().into_iter().map(|m| move_view(pos, game, &book, m)).collect()
        }
        _ => Vec::new(),
    };
    let mut moves = Vec::with_capacity(game.ply_count());
    let mut taken = Taken { black: Vec::new(), white: Vec::new() };
    for (i, p) in game.plies().iter().enumerate() {
        let mover = p.before.side_to_move();
        let before_book = HodgesBook::new(&p.before, game.table());
        moves.push(ListedMove {
            ply: i + 1,
            cecp: notation::to_cecp(p.mv),
            hodges: before_book.write(p.mv),
            color: color_name(mover),
        });
        for (_, pc) in p.effect.captured().chain(p.effect.burned()) {
            // A burn can remove the mover's own Fire Demon: it counts as taken by the other side.
            let by = pc.color().other();
            match by {
                Color::Black => taken.black.push(pc.abbr()),
                Color::White => taken.white.push(pc.abbr()),
            }
        }
    }
    let last = game.plies().last().map(|p| {
        let removed = |it: &mut dyn Iterator<Item = (Square, Piece)>| {
            it.map(|(s, pc)| Removed { sq: s.cecp(), abbr: pc.abbr() }).collect::<Vec<_>>()
        };
        LastMove {
            path: MovePath::new(p.mv, moves.last().map(|m| m.hodges.clone()).unwrap_or_default()),
            captured: removed(&mut p.effect.captured()),
            burned: removed(&mut p.effect.burned()),
        }
    });
    PositionView {
        ply: game.ply_count(),
        fen: pos.to_fen(),
        side_to_move: color_name(side),
        in_check: game.in_check(side),
        outcome: game.outcome().map(|o| OutcomeView { result: o.result_text(), reason: o.describe() }),
        board: Square::all().filter_map(|s| pos.piece_at(s).map(|p| piece_view(s, p))).collect(),
        legal,
        last,
        moves,
        taken,
        threats: SideThreats { black: threats(game, Color::Black), white: threats(game, Color::White) },
    }
}

/// A move's Hodges text in `game`'s current position (for the engine's principal variation,
/// which is written move by move from the position it starts in).
pub fn line_hodges(game: &Game, line: &[Move]) -> Vec<String> {
    let mut pos = *game.position();
    let mut out = Vec::with_capacity(line.len());
    for &m in line {
        let legal = engine::legal_moves(&pos, game.table());
        if !legal.contains(&m) {
            break;
        }
        out.push(HodgesBook::with_moves(&pos, game.table(), &legal).write(m));
        pos.play(game.table(), m);
    }
    out
}
