//! Input planes: a position as `NUM_PLANES` 16×16 planes of `f32`, always from the side to
//! move's point of view.
//!
//! # Plane layout (ENCODING_VERSION = 2)
//!
//! The buffer is `[NUM_PLANES, 16, 16]` row-major: value `(plane, sq)` is at
//! `plane * 256 + sq`, where `sq = rank * 16 + file` of the square **in the side-to-move
//! frame**: for Black the board as it is, for White the board turned 180°
//! (`Square::rotate`, i.e. `sq = 255 - square.index()`) and colours swapped, so "own" is always
//! the side to move, own pieces move towards rank 15 and the own promotion zone is ranks
//! 11..16. A position and its colour-mirrored twin ([`engine::Position::mirrored`]) encode
//! identically; there is no colour plane.
//!
//! | plane | meaning (1.0 where true, 0.0 elsewhere unless stated) |
//! |---|---|
//! | 0..44 | own pieces, one plane per movement type, in `engine::Kind` order (the 36 start types `King` = 0 … `Pawn` = 35, then the promoted-only types `Prince` = 36, `FlyingStag`, `FreeBoar`, `FlyingOx`, `WhiteHorse`, `Whale`, `MultiGeneral`, `HeavenlyTetrarch` = 43). A piece counts under the type it *moves as*: a promoted Pawn is on the Gold plane. |
//! | 44..88 | opponent pieces, the same 44 types |
//! | 88 | own promoted pieces (they can never promote again; e.g. `+P` vs an original Gold) |
//! | 89 | opponent promoted pieces |
//! | 90 | own Fire Demon burn zone: the on-board squares adjacent to an own Fire Demon (an opponent piece ending its move there is burned) |
//! | 91 | opponent Fire Demon burn zone: the squares adjacent to an opponent Fire Demon (an own piece ending its move there is burned, §6.2) |
//! | 92 | own promotion zone (frame ranks 11..16; constant) |
//! | 93 | opponent promotion zone (frame ranks 0..5; constant) |
//! | 94 | constant 1.0 (lets convolutions see the board edge) |
//! | 95 | repetition: the current position (same side to move) occurred at least once before |
//! | 96 | … at least twice before |
//! | 97 | … at least three times before (the next repetition is a 4th-or-later occurrence, §9) |
//! | 98 | constant `ply / ply_cap` (plies played in the game, `Rules::ply_cap`; 0.0 when there is no cap; at most 1.0) |
//! | 99..115 | rule planes: constant 1.0 when the rules flag differs from the standard preset as stated, one plane per flag group that changes moves or their consequences (RULES.md §15; see [`RULE_PLANE_NAMES`]) |
//! | 115 | own pieces the opponent could capture if it were to move (the victims of its legal moves: destination and intermediate captures; burns not counted) |
//! | 116 | … by a piece worth less than the victim ([`search::values::search_value`] of the movement type; a royal victim always counts) |
//! | 117 | opponent pieces the side to move can capture |
//! | 118 | … by a piece worth less than the victim |
//! | 119 | squares the side to move's pieces can end a move on (its legal moves' destinations) |
//! | 120 | squares the opponent's pieces could end a move on |
//!
//! Rule planes (index − 99): 0 `fire_demon_orthogonal = vertical`; 1 `fire_demon_area = none`;
//! 2 `fire_demon_area = lion_like`; 3 `vice_general_area = none`; 4 `vice_general_area =
//! lion_like`; 5 `fd_vs_fd ≠ mover_burned`; 6 `wb_promotion_burns = false`;
//! 7 `jump_capture_targets ≠ any`; 8 `jump_over = enemy_lower_friend_any` or
//! `rook_general_outranks_bishop_general`; 9 `jump_on_noncapture`; 10 `free_eagle ≠ standard`;
//! 11 `heavenly_tetrarch ≠ standard` or `ht_can_pass`; 12 `lion_hawk ≠ lion_bishop`;
//! 13 `last_rank_rule ≠ forced_when_eligible`; 14 `offer_useless_deferral = false`;
//! 15 `repetition ≠ jcsa`. The standard preset has all 16 at 0; HaChu sets 0, 1, 3, 6, 7, 10,
//! 11, 14, 15; the house rules set 2, 4, 5, 7, 8, 9, 10, 11. Flags with several non-default
//! values share one plane per group (their presets are still told apart by the other planes).
//!
//! The attack planes (115..121, new in version 2) give the network what its receptive field
//! cannot: a 3-block tower with a 1×1 input convolution sees 6 squares each way, while the
//! Tenjiku sliders and jumping generals strike across the whole 16×16 board. They come from
//! move generation for both sides ([`engine::generate_for`]).
//!
//! Changing anything in this table means bumping [`ENCODING_VERSION`] (checkpoints record it).
//! The policy layout is in [`crate::policy`] and shares this version. Version 1 was planes
//! 0..115 alone; its checkpoints load with zero weights on the attack planes
//! ([`crate::checkpoint::load`]), so they compute what they computed before.
//!
//! # Cost
//!
//! [`encode`] allocates nothing: one `fill(0.0)` of the buffer, then only the non-zero entries
//! (≤ 156 piece squares twice, burn zones, constant planes), plus move generation for both
//! sides into a stack [`MoveList`] for the attack planes.

use engine::generate_for;
use engine::rules::{
    AreaMove, FdVsFd, FireDemonOrthogonal, FreeEagle, HeavenlyTetrarch, JumpCapture, JumpOver, LastRankRule, LionHawk,
    Repetition,
};
use engine::Game;
use engine::NUM_KINDS;
use engine::{Color, Kind, MoveList, MoveTable, Piece, Position, Rules};
use search::values::{search_value as piece_value, ROYAL_ORDER_VALUE};

/// Number of 16×16 input planes.
pub const NUM_PLANES: usize = 121;
/// Version of the plane layout and of the policy index layout; checkpoints record it.
pub const ENCODING_VERSION: u32 = 2;
/// Input planes of encoding version 1 (planes 0..115 of this layout, without the attack
/// planes); checkpoints of that version are upgraded on load.
pub const V1_PLANES: usize = 115;
/// Floats in one encoded position (`NUM_PLANES * 256`).
pub const INPUT_SIZE: usize = NUM_PLANES * 256;

/// First own piece-type plane (`+ Kind as usize`).
pub const PLANE_OWN_PIECES: usize = 0;
/// First opponent piece-type plane.
pub const PLANE_OPP_PIECES: usize = NUM_KINDS;
pub const PLANE_OWN_PROMOTED: usize = 88;
pub const PLANE_OPP_PROMOTED: usize = 89;
pub const PLANE_OWN_BURN_ZONE: usize = 90;
pub const PLANE_OPP_BURN_ZONE: usize = 91;
pub const PLANE_OWN_PROMOTION_ZONE: usize = 92;
pub const PLANE_OPP_PROMOTION_ZONE: usize = 93;
pub const PLANE_ONES: usize = 94;
/// First repetition plane (3 planes: ≥ 1, ≥ 2, ≥ 3 earlier occurrences).
pub const PLANE_REPETITION: usize = 95;
pub const PLANE_PLY: usize = 98;
/// First rule plane.
pub const PLANE_RULES: usize = 99;
/// Number of rule planes.
pub const NUM_RULE_PLANES: usize = 16;
/// Own pieces the opponent could capture.
pub const PLANE_OWN_ATTACKED: usize = 115;
/// Own pieces the opponent could capture with a piece worth less.
pub const PLANE_OWN_ATTACKED_CHEAPER: usize = 116;
/// Opponent pieces the side to move can capture.
pub const PLANE_OPP_ATTACKED: usize = 117;
/// Opponent pieces the side to move can capture with a piece worth less.
pub const PLANE_OPP_ATTACKED_CHEAPER: usize = 118;
/// Squares the side to move's moves can end on.
pub const PLANE_OWN_REACH: usize = 119;
/// Squares the opponent's moves could end on.
pub const PLANE_OPP_REACH: usize = 120;

const _: () = assert!(PLANE_OPP_PIECES + NUM_KINDS == PLANE_OWN_PROMOTED);
const _: () = assert!(PLANE_RULES + NUM_RULE_PLANES == V1_PLANES);
const _: () = assert!(PLANE_OWN_ATTACKED == V1_PLANES && PLANE_OPP_REACH + 1 == NUM_PLANES);

/// Names of the rule planes (what makes each 1.0).
pub const RULE_PLANE_NAMES: [&str; NUM_RULE_PLANES] = [
    "fire_demon_orthogonal = vertical",
    "fire_demon_area = none",
    "fire_demon_area = lion_like",
    "vice_general_area = none",
    "vice_general_area = lion_like",
    "fd_vs_fd != mover_burned",
    "wb_promotion_burns = false",
    "jump_capture_targets != any",
    "jump_over = enemy_lower_friend_any or rook_general_outranks_bishop_general",
    "jump_on_noncapture",
    "free_eagle != standard",
    "heavenly_tetrarch != standard or ht_can_pass",
    "lion_hawk != lion_bishop",
    "last_rank_rule != forced_when_eligible",
    "offer_useless_deferral = false",
    "repetition != jcsa",
];

/// The rule-plane bits of a rules value (see the module table).
pub fn rule_features(r: &Rules) -> [bool; NUM_RULE_PLANES] {
    [
        r.fire_demon_orthogonal == FireDemonOrthogonal::Vertical,
        r.fire_demon_area == AreaMove::None,
        r.fire_demon_area == AreaMove::LionLike,
        r.vice_general_area == AreaMove::None,
        r.vice_general_area == AreaMove::LionLike,
        r.fd_vs_fd != FdVsFd::MoverBurned,
        !r.wb_promotion_burns,
        r.jump_capture_targets != JumpCapture::Any,
        r.jump_over == JumpOver::EnemyLowerFriendAny || r.rook_general_outranks_bishop_general,
        r.jump_on_noncapture,
        r.free_eagle != FreeEagle::Standard,
        r.heavenly_tetrarch != HeavenlyTetrarch::Standard || r.ht_can_pass,
        r.lion_hawk != LionHawk::LionBishop,
        r.last_rank_rule != LastRankRule::ForcedWhenEligible,
        !r.offer_useless_deferral,
        r.repetition != Repetition::Jcsa,
    ]
}

/// What a [`Position`] does not know: history-dependent features.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HistoryFeatures {
    /// Earlier occurrences of the current position with the same side to move
    /// ([`Game::repetitions`]).
    pub repetitions: u32,
    /// Plies played in the game so far ([`Game::ply_count`]).
    pub ply: u32,
}

/// A human-readable name of a plane (for debugging and documentation).
pub fn plane_name(plane: usize) -> String {
    match plane {
        p if p < PLANE_OPP_PIECES => format!("own {:?}", Kind::from_index(p)),
        p if p < PLANE_OWN_PROMOTED => format!("opponent {:?}", Kind::from_index(p - PLANE_OPP_PIECES)),
        PLANE_OWN_PROMOTED => "own promoted".into(),
        PLANE_OPP_PROMOTED => "opponent promoted".into(),
        PLANE_OWN_BURN_ZONE => "own Fire Demon burn zone".into(),
        PLANE_OPP_BURN_ZONE => "opponent Fire Demon burn zone".into(),
        PLANE_OWN_PROMOTION_ZONE => "own promotion zone".into(),
        PLANE_OPP_PROMOTION_ZONE => "opponent promotion zone".into(),
        PLANE_ONES => "ones".into(),
        p if (PLANE_REPETITION..PLANE_REPETITION + 3).contains(&p) => {
            format!("repetitions >= {}", p - PLANE_REPETITION + 1)
        }
        PLANE_PLY => "ply / ply_cap".into(),
        p if (PLANE_RULES..V1_PLANES).contains(&p) => format!("rule: {}", RULE_PLANE_NAMES[p - PLANE_RULES]),
        PLANE_OWN_ATTACKED => "own pieces attacked".into(),
        PLANE_OWN_ATTACKED_CHEAPER => "own pieces attacked by a cheaper piece".into(),
        PLANE_OPP_ATTACKED => "opponent pieces attacked".into(),
        PLANE_OPP_ATTACKED_CHEAPER => "opponent pieces attacked by a cheaper piece".into(),
        PLANE_OWN_REACH => "own move destinations".into(),
        PLANE_OPP_REACH => "opponent move destinations".into(),
        _ => "out of range".into(),
    }
}

/// Frame index (`0..256`) of a square for the side to move.
#[inline]
fn frame(i: usize, white: bool) -> usize {
    if white {
        255 - i
    } else {
        i
    }
}

/// Mark the on-board neighbours of frame square `sq` in `plane`.
#[inline]
fn mark_neighbours(plane: &mut [f32], sq: usize) {
    let (f, r) = ((sq & 15) as i32, (sq >> 4) as i32);
    for dr in -1..=1i32 {
        let rr = r + dr;
        if !(0..16).contains(&rr) {
            continue;
        }
        for df in -1..=1i32 {
            let ff = f + df;
            if (df != 0 || dr != 0) && (0..16).contains(&ff) {
                plane[(rr * 16 + ff) as usize] = 1.0;
            }
        }
    }
}

/// Encode `pos` (with its history features) into `out` (`out.len() == INPUT_SIZE`), from the
/// side to move's point of view. `t` supplies the rules (rule planes, ply cap).
pub fn encode(pos: &Position, t: &MoveTable, hist: &HistoryFeatures, out: &mut [f32]) {
    assert_eq!(out.len(), INPUT_SIZE, "encoding buffer must hold NUM_PLANES * 256 floats");
    out.fill(0.0);
    let us = pos.side_to_move();
    let white = us == Color::White;
    for c in [Color::Black, Color::White] {
        let own = c == us;
        let piece_base = if own { PLANE_OWN_PIECES } else { PLANE_OPP_PIECES } * 256;
        let promo_base = if own { PLANE_OWN_PROMOTED } else { PLANE_OPP_PROMOTED } * 256;
        let burn_plane = if own { PLANE_OWN_BURN_ZONE } else { PLANE_OPP_BURN_ZONE };
        for s in pos.squares_of(c) {
            let p = pos.piece_at(s).expect("occupied square");
            let sq = frame(s.index(), white);
            let kind = p.kind();
            out[piece_base + kind as usize * 256 + sq] = 1.0;
            if p.promoted() {
                out[promo_base + sq] = 1.0;
            }
            if kind == Kind::FireDemon {
                mark_neighbours(&mut out[burn_plane * 256..(burn_plane + 1) * 256], sq);
            }
        }
    }
    // Promotion zones: own = frame ranks 11..16, opponent = frame ranks 0..5.
    out[PLANE_OWN_PROMOTION_ZONE * 256 + 11 * 16..(PLANE_OWN_PROMOTION_ZONE + 1) * 256].fill(1.0);
    out[PLANE_OPP_PROMOTION_ZONE * 256..PLANE_OPP_PROMOTION_ZONE * 256 + 5 * 16].fill(1.0);
    out[PLANE_ONES * 256..(PLANE_ONES + 1) * 256].fill(1.0);
    for k in 0..3u32 {
        if hist.repetitions > k {
            let p = PLANE_REPETITION + k as usize;
            out[p * 256..(p + 1) * 256].fill(1.0);
        }
    }
    let cap = t.rules.ply_cap;
    if cap > 0 && hist.ply > 0 {
        let v = (hist.ply as f32 / cap as f32).min(1.0);
        out[PLANE_PLY * 256..(PLANE_PLY + 1) * 256].fill(v);
    }
    for (k, on) in rule_features(&t.rules).into_iter().enumerate() {
        if on {
            let p = PLANE_RULES + k;
            out[p * 256..(p + 1) * 256].fill(1.0);
        }
    }
    attack_planes(pos, t, us, out);
}

/// Value of a piece as a capture victim: royals above everything.
fn victim_value(p: Piece) -> i32 {
    if p.kind().is_royal() {
        ROYAL_ORDER_VALUE
    } else {
        piece_value(p.kind())
    }
}

/// Planes 115..121: what each side's legal moves (as if it were to move) capture and reach.
fn attack_planes(pos: &Position, t: &MoveTable, us: Color, out: &mut [f32]) {
    let white = us == Color::White;
    let mut list = MoveList::new();
    for side in [us, us.other()] {
        let (attacked, cheaper, reach) = if side == us {
            (PLANE_OPP_ATTACKED, PLANE_OPP_ATTACKED_CHEAPER, PLANE_OWN_REACH)
        } else {
            (PLANE_OWN_ATTACKED, PLANE_OWN_ATTACKED_CHEAPER, PLANE_OPP_REACH)
        };
        generate_for(pos, t, side, &mut list);
        for &m in list.as_slice() {
            let (Some(from), Some(to)) = (m.from(), m.to()) else { continue };
            let Some(mover) = pos.piece_at(from) else { continue };
            let mover_value = piece_value(mover.kind());
            out[reach * 256 + frame(to.index(), white)] = 1.0;
            for v in m.via().chain(std::iter::once(to)) {
                match pos.piece_at(v) {
                    Some(victim) if victim.color() != side => {
                        let sq = frame(v.index(), white);
                        out[attacked * 256 + sq] = 1.0;
                        if mover_value < victim_value(victim) {
                            out[cheaper * 256 + sq] = 1.0;
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}

/// Encode the current position of a game: repetition count and ply come from the game.
pub fn encode_game(game: &Game, out: &mut [f32]) {
    let hist = HistoryFeatures { repetitions: game.repetitions() as u32, ply: game.ply_count() as u32 };
    encode(game.position(), game.table(), &hist, out);
}
