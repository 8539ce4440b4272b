//! Shared helpers for the clause tests (RULES.md §4–§16).
//!
//! * building positions from `(square, piece)` lists (both Kings are added out of the way,
//!   on `b1` and `o16`, unless the list has a royal of that colour);
//! * move lists as CECP text sets, always checking that the generator produced no duplicate;
//! * an independent *reference model* of the default rules' single-piece moves, written from
//!   the words of RULES.md §4–§8 (not from the engine), used for exact-set comparisons on
//!   empty and crowded boards.
#![allow(dead_code)]

use engine::notation::to_cecp;
use engine::{generate, generate_piece};
use engine::{Color, Kind, Move, MoveList, MoveTable, Piece, Position, Rules, Square};
use std::collections::BTreeSet;

pub use Color::{Black, White};

// ------------------------------------------------------------------------------------------
// Squares, pieces, positions
// ------------------------------------------------------------------------------------------

pub fn sq(s: &str) -> Square {
    Square::parse_cecp(s).unwrap_or_else(|| panic!("bad square {s}"))
}

/// Black piece that moves as `k` (an unpromoted start type or a promoted-only type).
pub fn b(k: Kind) -> Piece {
    Piece::of_kind(k, Black)
}
/// White piece that moves as `k`.
pub fn w(k: Kind) -> Piece {
    Piece::of_kind(k, White)
}
/// A promoted start type (e.g. `promoted(Kind::Pawn, Black)` = `+P`, moves as a Gold).
pub fn promoted(start: Kind, c: Color) -> Piece {
    Piece::new(start, true, c)
}

pub const BLACK_KING_SQ: &str = "b1";
pub const WHITE_KING_SQ: &str = "o16";

/// A position with the given pieces, `stm` to move; Kings on b1 / o16 unless a royal of that
/// colour is in the list.
pub fn setup(pieces: &[(&str, Piece)], stm: Color) -> Position {
    let mut pos = Position::empty();
    for &(s, p) in pieces {
        pos.put(sq(s), p);
    }
    for (c, ks) in [(Black, BLACK_KING_SQ), (White, WHITE_KING_SQ)] {
        if !pieces.iter().any(|(_, p)| p.color() == c && p.kind().is_royal()) {
            assert!(pos.piece_at(sq(ks)).is_none(), "king square {ks} is taken");
            pos.put(sq(ks), Piece::of_kind(Kind::King, c));
        }
    }
    pos.set_side_to_move(stm);
    pos
}

pub fn fen(f: &str) -> Position {
    Position::from_fen(f).unwrap_or_else(|e| panic!("bad FEN {f}: {e}"))
}

pub fn table(r: &Rules) -> MoveTable {
    MoveTable::new(r)
}

pub fn std_table() -> MoveTable {
    MoveTable::new(&Rules::standard())
}

// ------------------------------------------------------------------------------------------
// Move lists
// ------------------------------------------------------------------------------------------

/// Every legal move of the side to move as CECP text, asserting that the list holds no
/// duplicate move and at most one `@@@@`.
pub fn all_moves_t(pos: &Position, t: &MoveTable) -> BTreeSet<String> {
    let mut l = MoveList::new();
    generate(pos, t, &mut l);
    let v: Vec<Move> = l.as_slice().to_vec();
    let set: BTreeSet<Move> = v.iter().copied().collect();
    assert_eq!(set.len(), v.len(), "duplicate moves generated in {pos:?}: {v:?}");
    let texts: BTreeSet<String> = v.iter().map(|m| to_cecp(*m)).collect();
    assert_eq!(texts.len(), v.len(), "two moves share a text in {pos:?}: {v:?}");
    assert!(v.iter().filter(|m| m.is_null_pass()).count() <= 1);
    texts
}

pub fn all_moves(pos: &Position, r: &Rules) -> BTreeSet<String> {
    all_moves_t(pos, &table(r))
}

/// The moves (as text) of the piece on `from`, taken from the full legal-move list of the side
/// to move (no `@@@@`), after checking the full list for duplicates.
pub fn moves_from_t(pos: &Position, t: &MoveTable, from: &str) -> BTreeSet<String> {
    let _ = all_moves_t(pos, t);
    let f = sq(from);
    let mut l = MoveList::new();
    generate(pos, t, &mut l);
    l.iter().filter(|m| m.from() == Some(f)).map(|m| to_cecp(*m)).collect()
}

pub fn moves_from(pos: &Position, r: &Rules, from: &str) -> BTreeSet<String> {
    moves_from_t(pos, &table(r), from)
}

/// As [`moves_from`] for the default rules.
pub fn std_from(pos: &Position, from: &str) -> BTreeSet<String> {
    moves_from(pos, &Rules::standard(), from)
}

/// `generate_piece` for one square (any colour), with its no-duplicate check.
pub fn piece_moves(pos: &Position, t: &MoveTable, from: &str) -> (BTreeSet<String>, bool) {
    let mut l = MoveList::new();
    let null = generate_piece(pos, t, sq(from), &mut l);
    let v: Vec<String> = l.iter().map(|m| to_cecp(*m)).collect();
    let s: BTreeSet<String> = v.iter().cloned().collect();
    assert_eq!(s.len(), v.len(), "duplicates from {from}: {v:?}");
    (s, null)
}

pub fn has_null_pass(pos: &Position, r: &Rules) -> bool {
    all_moves(pos, r).contains("@@@@")
}

pub fn set(v: &[&str]) -> BTreeSet<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Destinations (the last square of the text, `+` dropped) of one-leg moves.
pub fn dests(moves: &BTreeSet<String>) -> BTreeSet<String> {
    moves
        .iter()
        .filter(|m| !m.contains(','))
        .map(|m| {
            let m = m.trim_end_matches('+');
            let (_, n) = Square::parse_cecp_prefix(m).unwrap();
            m[n..].to_string()
        })
        .collect()
}

/// Play a move given as text; panics if it is not in the legal list.
pub fn play(pos: &mut Position, t: &MoveTable, text: &str) -> engine::MoveEffect {
    let m = engine::notation::parse_cecp(pos, t, text).unwrap_or_else(|e| panic!("{text}: {e} in {pos:?}"));
    assert_eq!(to_cecp(m), text, "parse_cecp picked another move");
    let before = *pos;
    let eff = pos.play(t, m);
    // Every played move must be undoable.
    let mut back = *pos;
    back.unplay(m, &eff);
    assert!(back == before, "unplay({text}) did not restore {before:?}, got {back:?}");
    assert_eq!(pos.hash(), pos.compute_hash(), "hash drift after {text}");
    eff
}

pub fn captured(eff: &engine::MoveEffect) -> BTreeSet<String> {
    eff.captured().map(|(s, _)| s.cecp()).collect()
}
pub fn burned(eff: &engine::MoveEffect) -> BTreeSet<String> {
    eff.burned().map(|(s, _)| s.cecp()).collect()
}

// ------------------------------------------------------------------------------------------
// Geometry
// ------------------------------------------------------------------------------------------

pub fn shift(s: Square, df: i32, dr: i32) -> Option<Square> {
    Square::new(s.file() + df, s.rank() + dr)
}

/// Rotate a square by 180° (Black's view ↔ White's view).
pub fn rot_sq(s: &str) -> String {
    sq(s).rotate().cecp()
}

/// Rotate every square of a move text by 180° (`h8g9,g9g10+` → `i9j8,j8j7+`).
pub fn rot_move(text: &str) -> String {
    if text == "@@@@" {
        return text.to_string();
    }
    let mut out = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        if let Some((s, n)) = Square::parse_cecp_prefix(rest) {
            out.push_str(&s.rotate().cecp());
            rest = &rest[n..];
        } else {
            out.push(rest.chars().next().unwrap());
            rest = &rest[1..];
        }
    }
    out
}

pub fn rot_set(s: &BTreeSet<String>) -> BTreeSet<String> {
    s.iter().map(|m| rot_move(m)).collect()
}

/// The same position turned 180° with colours swapped (White plays what Black played).
pub fn mirror(pos: &Position) -> Position {
    pos.mirrored()
}

// ------------------------------------------------------------------------------------------
// Reference model of the default rules (RULES.md §4–§8), one piece at a time
// ------------------------------------------------------------------------------------------

pub type Dir = (i32, i32);
/// Directions as seen by Black (forward = towards rank 16).
pub const FWD: Dir = (0, 1);
pub const BACK: Dir = (0, -1);
pub const LEFT: Dir = (-1, 0);
pub const RIGHT: Dir = (1, 0);
pub const FL: Dir = (-1, 1);
pub const FR: Dir = (1, 1);
pub const BL: Dir = (-1, -1);
pub const BR: Dir = (1, -1);
pub const ORTH: &[Dir] = &[FWD, BACK, LEFT, RIGHT];
pub const DIAG: &[Dir] = &[FL, FR, BL, BR];
pub const ALL8: &[Dir] = &[FWD, BACK, LEFT, RIGHT, FL, FR, BL, BR];
pub const SIDE: &[Dir] = &[LEFT, RIGHT];
pub const VERT: &[Dir] = &[FWD, BACK];
pub const FDIAG: &[Dir] = &[FL, FR];
pub const BDIAG: &[Dir] = &[BL, BR];

#[derive(Clone, Copy, Debug)]
pub enum Prim {
    /// Limited range n (1 = step, 15 = slide).
    Range(i32),
    /// Jump to the 2nd square.
    Jump2,
    /// Skip-first ride: squares 2..=n, the 1st ignored.
    Skip(i32),
    /// Capture an adjacent enemy without moving.
    Igui,
    /// Lion power along the single line.
    LinearLion,
    /// Range-jumping capture (§5.6, option A).
    RangeJump,
}
use Prim::*;

const SLIDE: i32 = 15;

/// The §5 table as data, for the default rules. Multi-direction special powers (Lion, area,
/// Knight, Free Eagle's bent lion) are flagged separately in [`Special`].
pub fn prims(kind: Kind) -> Vec<(&'static [Dir], Prim)> {
    use Kind::*;
    match kind {
        King | Prince => vec![(ALL8, Range(1))],
        DrunkElephant => vec![(&[FWD, LEFT, RIGHT, FL, FR, BL, BR], Range(1))],
        Gold => vec![(ORTH, Range(1)), (FDIAG, Range(1))],
        Silver => vec![(DIAG, Range(1)), (&[FWD], Range(1))],
        Copper => vec![(VERT, Range(1)), (FDIAG, Range(1))],
        Iron => vec![(&[FWD], Range(1)), (FDIAG, Range(1))],
        FerociousLeopard => vec![(DIAG, Range(1)), (VERT, Range(1))],
        BlindTiger => vec![(DIAG, Range(1)), (SIDE, Range(1)), (&[BACK], Range(1))],
        Dog => vec![(&[FWD], Range(1)), (BDIAG, Range(1))],
        Pawn => vec![(&[FWD], Range(1))],
        Knight => vec![],
        Kirin => vec![(DIAG, Range(1)), (ORTH, Jump2)],
        Phoenix => vec![(ORTH, Range(1)), (DIAG, Jump2)],
        Lance => vec![(&[FWD], Range(SLIDE))],
        ReverseChariot => vec![(VERT, Range(SLIDE))],
        SideMover => vec![(SIDE, Range(SLIDE)), (VERT, Range(1))],
        VerticalMover => vec![(VERT, Range(SLIDE)), (SIDE, Range(1))],
        Rook => vec![(ORTH, Range(SLIDE))],
        Bishop => vec![(DIAG, Range(SLIDE))],
        DragonKing => vec![(ORTH, Range(SLIDE)), (DIAG, Range(1))],
        DragonHorse => vec![(DIAG, Range(SLIDE)), (ORTH, Range(1))],
        Queen => vec![(ALL8, Range(SLIDE))],
        SideSoldier => vec![(SIDE, Range(SLIDE)), (&[FWD], Range(2)), (&[BACK], Range(1))],
        VerticalSoldier => vec![(&[FWD], Range(SLIDE)), (&[BACK], Range(1)), (SIDE, Range(2))],
        WaterBuffalo => vec![(DIAG, Range(SLIDE)), (SIDE, Range(SLIDE)), (VERT, Range(2))],
        ChariotSoldier => vec![(DIAG, Range(SLIDE)), (VERT, Range(SLIDE)), (SIDE, Range(2))],
        FlyingStag => vec![(ALL8, Range(1)), (VERT, Range(SLIDE))],
        FreeBoar => vec![(DIAG, Range(SLIDE)), (SIDE, Range(SLIDE))],
        FlyingOx => vec![(DIAG, Range(SLIDE)), (VERT, Range(SLIDE))],
        WhiteHorse => vec![(VERT, Range(SLIDE)), (FDIAG, Range(SLIDE))],
        Whale => vec![(VERT, Range(SLIDE)), (BDIAG, Range(SLIDE))],
        MultiGeneral => vec![(&[FWD], Range(SLIDE)), (BDIAG, Range(SLIDE))],
        // §5.2
        SoaringEagle => vec![(ORTH, Range(SLIDE)), (BDIAG, Range(SLIDE)), (FDIAG, LinearLion)],
        HornedFalcon => vec![(DIAG, Range(SLIDE)), (SIDE, Range(SLIDE)), (&[BACK], Range(SLIDE)), (&[FWD], LinearLion)],
        // §5.3
        LionHawk => vec![(DIAG, Range(SLIDE))],
        Lion => vec![],
        // §5.4
        FreeEagle => vec![(ALL8, Range(SLIDE)), (ALL8, Jump2)],
        // §5.5
        HeavenlyTetrarch => vec![(VERT, Skip(SLIDE)), (DIAG, Skip(SLIDE)), (SIDE, Skip(3)), (ALL8, Igui)],
        // §5.6
        GreatGeneral => vec![(ALL8, Range(SLIDE)), (ALL8, RangeJump)],
        ViceGeneral => vec![(DIAG, Range(SLIDE)), (DIAG, RangeJump)],
        RookGeneral => vec![(ORTH, Range(SLIDE)), (ORTH, RangeJump)],
        BishopGeneral => vec![(DIAG, Range(SLIDE)), (DIAG, RangeJump)],
        // §5.7 (default: sideways)
        FireDemon => vec![(DIAG, Range(SLIDE)), (SIDE, Range(SLIDE))],
    }
}

/// The special powers of a type under the default rules.
#[derive(Default, Clone, Copy, Debug)]
pub struct Special {
    pub lion: bool,
    pub knight: bool,
    /// Free Eagle: diagonal capture, then a diagonal step (§5.4).
    pub bent_lion: bool,
    pub area3: bool,
    pub burns: bool,
}

pub fn special(kind: Kind) -> Special {
    use Kind::*;
    Special {
        lion: matches!(kind, Lion | LionHawk),
        knight: kind == Knight,
        bent_lion: kind == FreeEagle,
        area3: matches!(kind, ViceGeneral | FireDemon),
        burns: kind == FireDemon,
    }
}

/// §5.6 jump-rank.
pub fn jump_rank(kind: Kind) -> u8 {
    use Kind::*;
    match kind {
        King | Prince => 4,
        GreatGeneral => 3,
        ViceGeneral => 2,
        RookGeneral | BishopGeneral => 1,
        _ => 0,
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Cell {
    Empty,
    Friend,
    Enemy,
    Off,
}

fn in_zone(c: Color, s: Square) -> bool {
    match c {
        Black => s.rank() >= 11,
        White => s.rank() <= 4,
    }
}
fn ranks_to_last(c: Color, s: Square) -> i32 {
    match c {
        Black => 15 - s.rank(),
        White => s.rank(),
    }
}

/// The moves of the piece on `from` under the default rules, as the spec's words give them:
/// the set of CECP texts (board-changing passes `xNxN` included) and whether the piece can make
/// a board-neutral pass (which the full list shows once as `@@@@`).
pub fn reference(pos: &Position, from: Square) -> (BTreeSet<String>, bool) {
    reference_with(pos, from, &Rules::standard())
}

/// §15 flags the reference model understands (the rest must be at their defaults):
/// fire_demon_orthogonal, fire_demon_area, vice_general_area, jump_capture_targets (not D),
/// jump_over, jump_on_noncapture, rook_general_outranks_bishop_general, free_eagle (Standard,
/// DiagonalLion, Queen), heavenly_tetrarch (Standard, ChariotSoldier, ChariotSoldierFreezing),
/// offer_useless_deferral. Enough for the three presets.
pub fn reference_with(pos: &Position, from: Square, rules: &Rules) -> (BTreeSet<String>, bool) {
    use engine::rules::*;
    let p = pos.piece_at(from).expect("no piece");
    let c = p.color();
    let kind = p.kind();
    // §13 reading: an enemy piece next to a freezing Tetrarch makes no move at all.
    if rules.heavenly_tetrarch == HeavenlyTetrarch::ChariotSoldierFreezing
        && ALL8.iter().any(|d| {
            shift(from, d.0, d.1)
                .and_then(|s| pos.piece_at(s))
                .is_some_and(|q| q.color() != c && q.kind() == Kind::HeavenlyTetrarch)
        })
    {
        return (BTreeSet::new(), false);
    }
    let house_ranks = rules.rook_general_outranks_bishop_general;
    let rank = |k: Kind| -> u8 {
        let r = jump_rank(k);
        if house_ranks {
            match k {
                Kind::BishopGeneral => 1,
                _ if r > 0 => r + 1,
                _ => 0,
            }
        } else {
            r
        }
    };
    let sgn = if c == Black { 1 } else { -1 };
    let rel = |d: Dir| (d.0 * sgn, d.1 * sgn);
    let cell = |s: Option<Square>| -> Cell {
        match s {
            None => Cell::Off,
            Some(s) if s == from => Cell::Empty, // the vacated origin
            Some(s) => match pos.piece_at(s) {
                None => Cell::Empty,
                Some(q) if q.color() == c => Cell::Friend,
                Some(_) => Cell::Enemy,
            },
        }
    };
    let land = |s: Option<Square>| matches!(cell(s), Cell::Empty | Cell::Enemy);
    let at = |d: Dir, n: i32| shift(from, d.0 * n, d.1 * n);

    // (captures by intermediate legs, destination)
    let mut raw: Vec<(Vec<Square>, Square)> = Vec::new();
    let mut can_pass = false;

    let mut my_prims = prims(kind);
    let mut sp = special(kind);
    let area_rule = match kind {
        Kind::ViceGeneral => rules.vice_general_area,
        Kind::FireDemon => rules.fire_demon_area,
        _ => AreaMove::None,
    };
    sp.area3 = area_rule == AreaMove::StopOnCapture;
    let lion_like = area_rule == AreaMove::LionLike;
    match kind {
        Kind::FireDemon if rules.fire_demon_orthogonal == FireDemonOrthogonal::Vertical => {
            my_prims = vec![(DIAG, Range(SLIDE)), (VERT, Range(SLIDE))];
        }
        Kind::FreeEagle => match rules.free_eagle {
            FreeEagle::Standard => {}
            FreeEagle::DiagonalLion => my_prims = vec![(ALL8, Range(SLIDE)), (DIAG, Jump2)],
            FreeEagle::Queen => {
                my_prims = vec![(ALL8, Range(SLIDE))];
                sp.bent_lion = false;
            }
            other => panic!("reference model: free_eagle {other:?} not modelled"),
        },
        Kind::HeavenlyTetrarch => match rules.heavenly_tetrarch {
            HeavenlyTetrarch::Standard => {}
            HeavenlyTetrarch::ChariotSoldier | HeavenlyTetrarch::ChariotSoldierFreezing => {
                my_prims = prims(Kind::ChariotSoldier)
            }
            other => panic!("reference model: heavenly_tetrarch {other:?} not modelled"),
        },
        _ => {}
    }
    assert!(rules.jump_capture_targets != JumpCapture::LowerOnlyEvenDirect, "not modelled");
    assert_eq!(rules.lion_hawk, LionHawk::LionBishop, "not modelled");
    assert!(!rules.ht_can_pass, "not modelled");
    assert_eq!(rules.last_rank_rule, LastRankRule::ForcedWhenEligible, "not modelled");

    for (dirs, prim) in my_prims {
        for &d0 in dirs {
            let d = rel(d0);
            match prim {
                Range(n) | Skip(n) => {
                    let start = if matches!(prim, Skip(_)) { 2 } else { 1 };
                    for i in start..=n {
                        let s = at(d, i);
                        match cell(s) {
                            Cell::Empty => raw.push((vec![], s.unwrap())),
                            Cell::Enemy => {
                                raw.push((vec![], s.unwrap()));
                                break;
                            }
                            _ => break,
                        }
                    }
                }
                Jump2 => {
                    if land(at(d, 2)) {
                        raw.push((vec![], at(d, 2).unwrap()));
                    }
                }
                Igui => {
                    if cell(at(d, 1)) == Cell::Enemy {
                        raw.push((vec![at(d, 1).unwrap()], from));
                    }
                }
                LinearLion => {
                    let a = at(d, 1);
                    let bb = at(d, 2);
                    match cell(a) {
                        Cell::Empty => {
                            raw.push((vec![], a.unwrap()));
                            can_pass = true;
                        }
                        Cell::Enemy => {
                            raw.push((vec![], a.unwrap()));
                            raw.push((vec![a.unwrap()], from));
                            if land(bb) {
                                raw.push((vec![a.unwrap()], bb.unwrap()));
                            }
                        }
                        _ => {}
                    }
                    if cell(a) != Cell::Off && land(bb) {
                        raw.push((vec![], bb.unwrap()));
                    }
                }
                RangeJump => {
                    // §5.6 / §12.1 / §13: walk the line; the k-th piece can be reached if every
                    // piece before it may be jumped; empty squares beyond the first piece only
                    // with jump_on_noncapture.
                    let power = rank(kind);
                    let jumpable = |q: engine::Piece| match rules.jump_over {
                        JumpOver::LowerRank => rank(q.kind()) < power,
                        JumpOver::EnemyLowerFriendAny => {
                            if q.color() == c {
                                !q.kind().is_royal()
                            } else {
                                rank(q.kind()) < power
                            }
                        }
                    };
                    let target_ok = |q: engine::Piece| match rules.jump_capture_targets {
                        JumpCapture::Any => true,
                        JumpCapture::NoRoyals => !q.kind().is_royal(),
                        JumpCapture::LowerOnly => rank(q.kind()) < power,
                        JumpCapture::NotHigherNoRoyals => rank(q.kind()) <= power && !q.kind().is_royal(),
                        JumpCapture::LowerOnlyEvenDirect => unreachable!(),
                    };
                    let mut seen_piece = false;
                    let mut i = 1;
                    while let Some(s) = at(d, i) {
                        i += 1;
                        match pos.piece_at(s) {
                            None => {
                                if seen_piece && rules.jump_on_noncapture {
                                    raw.push((vec![], s));
                                }
                            }
                            Some(q) => {
                                if q.color() != c && (!seen_piece || target_ok(q)) {
                                    raw.push((vec![], s));
                                }
                                seen_piece = true;
                                if !jumpable(q) {
                                    break;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    if sp.knight {
        for df in [-1, 1] {
            let s = shift(from, df, 2 * sgn);
            if land(s) {
                raw.push((vec![], s.unwrap()));
            }
        }
    }
    if sp.lion {
        for df in -2..=2 {
            for dr in -2..=2 {
                if (df, dr) != (0, 0) && land(shift(from, df, dr)) {
                    raw.push((vec![], shift(from, df, dr).unwrap()));
                }
            }
        }
        for &d1 in ALL8 {
            let a = at(d1, 1);
            match cell(a) {
                Cell::Empty => can_pass = true,
                Cell::Enemy => {
                    let a = a.unwrap();
                    for &d2 in ALL8 {
                        let bb = shift(a, d2.0, d2.1);
                        if land(bb) {
                            raw.push((vec![a], bb.unwrap()));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    if sp.bent_lion {
        for &d1 in DIAG {
            let a = at(d1, 1);
            match cell(a) {
                Cell::Empty => can_pass = true,
                Cell::Enemy => {
                    let a = a.unwrap();
                    for &d2 in DIAG {
                        let bb = shift(a, d2.0, d2.1);
                        if land(bb) {
                            raw.push((vec![a], bb.unwrap()));
                        }
                    }
                }
                _ => {}
            }
        }
    }
    if sp.area3 {
        // Every path of 1..3 king steps; squares before the last must be empty (origin counts
        // as empty); the last empty or enemy; ending on the origin is the pass.
        fn rec(
            from: Square,
            here: Square,
            left: i32,
            cell: &dyn Fn(Option<Square>) -> Cell,
            out: &mut Vec<(Vec<Square>, Square)>,
            pass: &mut bool,
        ) {
            for &d in ALL8 {
                let s = shift(here, d.0, d.1);
                match cell(s) {
                    Cell::Empty => {
                        let s = s.unwrap();
                        if s == from {
                            *pass = true;
                        } else {
                            out.push((vec![], s));
                        }
                        if left > 1 {
                            rec(from, s, left - 1, cell, out, pass);
                        }
                    }
                    Cell::Enemy => out.push((vec![], s.unwrap())),
                    _ => {}
                }
            }
        }
        rec(from, from, 3, &cell, &mut raw, &mut can_pass);
    }

    if lion_like {
        // §13 reading: 1..3 king steps; a friend is jumped; an enemy is captured (ending there
        // or going on) or jumped; the vacated origin and captured squares are empty; the move
        // ends on an empty square, an enemy (captured) or the origin (pass when nothing was
        // captured). Identity: captures in order, destination.
        #[allow(clippy::too_many_arguments)]
        fn rec(
            pos: &Position,
            c: Color,
            from: Square,
            here: Square,
            left: i32,
            caps: &mut Vec<Square>,
            out: &mut Vec<(Vec<Square>, Square)>,
            pass: &mut bool,
        ) {
            for &d in ALL8 {
                let Some(s) = shift(here, d.0, d.1) else { continue };
                let occupant = if s == from || caps.contains(&s) { None } else { pos.piece_at(s) };
                match occupant {
                    None => {
                        if s == from && caps.is_empty() {
                            let _ = &pass; // the pass: decided below (§13: needs an empty neighbour)
                        } else {
                            out.push((caps.clone(), s));
                        }
                        if left > 1 {
                            rec(pos, c, from, s, left - 1, caps, out, pass);
                        }
                    }
                    Some(q) if q.color() != c => {
                        out.push((caps.clone(), s)); // capture on the final square
                        if left > 1 {
                            caps.push(s);
                            rec(pos, c, from, s, left - 1, caps, out, pass);
                            caps.pop();
                            rec(pos, c, from, s, left - 1, caps, out, pass); // jumped
                        }
                    }
                    Some(_) => {
                        if left > 1 {
                            rec(pos, c, from, s, left - 1, caps, out, pass);
                        }
                    }
                }
            }
        }
        let mut caps = Vec::new();
        let mut unused = false;
        rec(pos, c, from, from, 3, &mut caps, &mut raw, &mut unused);
        can_pass |= ALL8.iter().any(|&d| cell(at(d, 1)) == Cell::Empty);
        // Coming back onto the last captured square is the plain capture there.
        for (via, to) in raw.iter_mut() {
            if via.last() == Some(to) {
                via.pop();
            }
        }
    }
    let upward = matches!(
        kind,
        Kind::Pawn
            | Kind::Dog
            | Kind::BlindTiger
            | Kind::DrunkElephant
            | Kind::Kirin
            | Kind::Lance
            | Kind::ReverseChariot
            | Kind::Rook
            | Kind::Bishop
            | Kind::DragonKing
            | Kind::DragonHorse
            | Kind::RookGeneral
            | Kind::BishopGeneral
            | Kind::Lion
            | Kind::Queen
            | Kind::ChariotSoldier
            | Kind::VerticalSoldier
            | Kind::SideSoldier
    );
    let offer_deferral = rules.offer_useless_deferral || !upward;
    // Promotion (§8, default last-rank rule).
    let mut out = BTreeSet::new();
    let depth = match kind {
        Kind::Pawn | Kind::Lance | Kind::Iron => 1,
        Kind::Knight => 2,
        _ => 0,
    };
    for (via, to) in raw {
        let capture = !via.is_empty() || cell(Some(to)) == Cell::Enemy;
        let mut text = String::new();
        let mut here = from;
        for v in &via {
            text.push_str(&format!("{}{},", here.cecp(), v.cecp()));
            here = *v;
        }
        text.push_str(&format!("{}{}", here.cecp(), to.cecp()));
        let from_in = in_zone(c, from);
        let eligible = p.can_promote() && ((!from_in && in_zone(c, to)) || (capture && from_in));
        let forced = ranks_to_last(c, to) < depth;
        if eligible {
            out.insert(format!("{text}+"));
        }
        if !eligible || (!forced && offer_deferral) {
            out.insert(text);
        }
    }
    // §7.3 / §16.3: a pass that changes the board is the piece's own `xNxN`.
    let mut neutral = false;
    if can_pass {
        let changes = ALL8.iter().any(|&d| {
            let s = at(d, 1);
            cell(s) == Cell::Enemy && (sp.burns || pos.piece_at(s.unwrap()).unwrap().kind() == Kind::FireDemon)
        });
        if changes {
            out.insert(format!("{}{}", from.cecp(), from.cecp()));
        } else {
            neutral = true;
        }
    }
    (out, neutral)
}

/// Small deterministic generator for crowded test boards.
pub struct Lcg(pub u64);
impl Lcg {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A random piece (any type, promoted pieces included, either colour), never royal.
pub fn random_piece(r: &mut Lcg) -> Piece {
    loop {
        let k = Kind::ALL[r.below(44) as usize];
        if k.is_royal() {
            continue;
        }
        let c = if r.below(2) == 0 { Black } else { White };
        // Sometimes the promoted twin of a start type (`+R` moves as a DK, cannot promote).
        if k.is_start_kind() && k.info().promotes_to.is_some() && r.below(5) == 0 {
            return Piece::new(k, true, c);
        }
        return Piece::of_kind(k, c);
    }
}

/// A random crowded board: each square holds a random piece with probability `density`%, and
/// each side gets a King somewhere.
pub fn crowded(seed: u64, density: u64) -> Position {
    let mut r = Lcg(seed);
    let mut pos = Position::empty();
    for s in Square::all() {
        if r.below(100) < density {
            pos.put(s, random_piece(&mut r));
        }
    }
    for c in [Black, White] {
        pos.put(Square::from_index(r.below(256) as usize), Piece::of_kind(Kind::King, c));
    }
    pos
}

/// The engine's moves of every piece of the side to move equal the reference model's under
/// `rules`; `@@@@` is listed iff some piece can pass without changing the board;
/// `generate_piece` agrees with `generate` square by square.
pub fn compare_with_reference(pos: &Position, t: &MoveTable) {
    let all = all_moves_t(pos, t);
    let stm = pos.side_to_move();
    let mut l = MoveList::new();
    generate(pos, t, &mut l);
    let mut by_from: std::collections::BTreeMap<Square, BTreeSet<String>> = Default::default();
    for m in l.iter().filter(|m| !m.is_null_pass()) {
        by_from.entry(m.from().unwrap()).or_default().insert(to_cecp(*m));
    }
    let mut neutral = false;
    for s in pos.squares_of(stm).collect::<Vec<_>>() {
        let (want, n) = reference_with(pos, s, &t.rules);
        neutral |= n;
        let got = by_from.remove(&s).unwrap_or_default();
        assert_eq!(got, want, "{:?} on {s} in {pos:?} under {:?}", pos.piece_at(s).unwrap(), t.rules.preset_name());
        let (single, null) = piece_moves(pos, t, &s.cecp());
        assert_eq!(single, got, "generate_piece on {s}");
        assert_eq!(null, n, "generate_piece's neutral pass on {s}");
    }
    assert!(by_from.is_empty());
    assert_eq!(all.contains("@@@@"), neutral, "@@@@ in {pos:?}");
}

/// The result of a move by the words of §6 (captures, promotion, passive burn, active burn,
/// promotion burn; fd_vs_fd and wb_promotion_burns honoured), computed without the engine's
/// `play`. Returns the position after the move.
pub fn reference_play(pos: &Position, rules: &Rules, text: &str) -> Position {
    use engine::rules::FdVsFd;
    let mut p = *pos;
    let us = pos.side_to_move();
    p.set_side_to_move(us.other());
    if text == "@@@@" {
        return p;
    }
    let promote = text.ends_with('+');
    let body = text.trim_end_matches('+');
    let mut squares = Vec::new();
    for leg in body.split(',') {
        let (a, n) = Square::parse_cecp_prefix(leg).unwrap();
        let bsq = Square::parse_cecp(&leg[n..]).unwrap();
        if squares.is_empty() {
            squares.push(a);
        }
        squares.push(bsq);
    }
    let from = squares[0];
    let to = *squares.last().unwrap();
    let mover = p.remove(from).unwrap();
    // 1. every square the legs end on is captured (the origin was vacated first)
    for s in &squares[1..] {
        if let Some(q) = p.piece_at(*s) {
            assert_ne!(q.color(), us, "{text} lands on a friend");
            p.remove(*s);
        }
    }
    let was_fd = mover.kind() == Kind::FireDemon;
    let piece = if promote { mover.promote() } else { mover };
    p.put(to, piece);
    let neighbours: Vec<Square> = ALL8.iter().filter_map(|d| shift(to, d.0, d.1)).collect();
    let enemy_fd: Vec<Square> = neighbours
        .iter()
        .copied()
        .filter(|s| p.piece_at(*s).is_some_and(|q| q.color() != us && q.kind() == Kind::FireDemon))
        .collect();
    let enemies_not_fd: Vec<Square> = neighbours
        .iter()
        .copied()
        .filter(|s| p.piece_at(*s).is_some_and(|q| q.color() != us && q.kind() != Kind::FireDemon))
        .collect();
    let is_fd = piece.kind() == Kind::FireDemon;
    let burns_now = is_fd && (was_fd || rules.wb_promotion_burns);
    // 2. passive burn
    if !enemy_fd.is_empty() {
        if is_fd {
            match rules.fd_vs_fd {
                FdVsFd::MoverBurned => {}
                FdVsFd::MoverBurnsOthers => {
                    if burns_now {
                        for s in &enemies_not_fd {
                            p.remove(*s);
                        }
                    }
                }
                FdVsFd::BothDestroyed => {
                    // §13: a Water Buffalo promoting here is burned first, as a Water Buffalo.
                    if was_fd {
                        for s in &enemy_fd {
                            p.remove(*s);
                        }
                    }
                }
            }
        }
        p.remove(to);
        return p;
    }
    // 3./4. active burn and promotion burn
    if burns_now {
        for s in &enemies_not_fd {
            p.remove(*s);
        }
    }
    p
}

/// Every legal move played by the engine gives the position `reference_play` computes.
pub fn compare_play_with_reference(pos: &Position, t: &MoveTable) {
    for m in all_moves_t(pos, t) {
        let mut p = *pos;
        let eff = play(&mut p, t, &m);
        let want = reference_play(pos, &t.rules, &m);
        assert!(p == want, "{m} in {pos:?}: engine {p:?}, rules {want:?}");
        // The effect lists exactly the removed pieces.
        let before = pos.piece_count(Black) + pos.piece_count(White);
        let after = p.piece_count(Black) + p.piece_count(White);
        let removed = eff.captured().count() + eff.burned().count();
        assert_eq!((before - after) as usize, removed, "{m}: captures + burns (the mover included)");
        assert_eq!(
            eff.mover_burned,
            m != "@@@@" && p.piece_at(sq(&to_square_of(&m))).map(|q| q.color()) != Some(pos.side_to_move()),
            "{m}"
        );
    }
}

fn to_square_of(text: &str) -> String {
    let body = text.trim_end_matches('+');
    let last = body.rsplit(',').next().unwrap();
    let (_, n) = Square::parse_cecp_prefix(last).unwrap();
    last[n..].to_string()
}
