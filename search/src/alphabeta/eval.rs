//! Static evaluation for the alpha-beta engine ([`crate::alphabeta`]): material from the
//! search table of piece values ([`crate::values::search_value`]) plus a few cheap positional terms.
//!
//! Scores are centipawns (Pawn = 100) from the point of view of the side to move.
//!
//! # Positional terms
//!
//! Each term can be switched off in [`EvalConfig`]; BENCHMARKS.md ("Alpha-beta baseline")
//! records the self-play matches that decided the defaults: mobility 4 cp per square (beat 2,
//! which beat 0), royal safety on (won 15–5 and 13–7 against off), promotion potential at 25 %
//! of its share table (the full table lost 3–17; 25 % beat 0 by 13–7 twice).
//! * **Mobility** of the ranging pieces: for every piece with a move of range ≥ 2 in some
//!   direction (slides, limited ranges, skip-first slides), the number of squares it can reach
//!   along those directions (empty squares, plus the first enemy), times a weight.
//! * **Royal safety** of a side's *last* royal: a penalty for every enemy range-jumping general
//!   on one of its lines through the royal (larger when nothing of high enough jump-rank stands
//!   in between, i.e. the royal can be taken next move), and for every enemy Fire Demon within a
//!   few king steps of it.
//! * **Promotion potential**: a share of the value a promotable piece gains by promoting
//!   (Water Buffalo → Fire Demon, Side Soldier → Water Buffalo, Kirin → Lion, …), larger the
//!   closer the piece stands to its promotion zone.

use crate::values::search_value as piece_value;
use engine::board::NUM_CODES;
use engine::board::{dir, PAD_W};
use engine::MoveTable;
use engine::Piece;
use engine::Position;
use engine::{Color, Square};

/// Which positional terms are on, and their weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvalConfig {
    /// Centipawns per reachable square of a ranging piece (0 = term off).
    pub mobility: i32,
    /// Royal-safety term on.
    pub royal_safety: bool,
    /// Promotion-potential term, in percent of the share table (0 = off).
    pub promotion: i32,
}

impl Default for EvalConfig {
    /// The terms kept after the self-play matches recorded in BENCHMARKS.md.
    fn default() -> Self {
        EvalConfig { mobility: 4, royal_safety: true, promotion: 25 }
    }
}

impl EvalConfig {
    /// Material only.
    pub fn material() -> EvalConfig {
        EvalConfig { mobility: 0, royal_safety: false, promotion: 0 }
    }
}

/// Penalty for an enemy range-jumping general whose line to the last royal is open (it could
/// take the royal next move).
const OPEN_GENERAL_LINE: i32 = 250;
/// Penalty for an enemy range-jumping general on a line through the last royal that is shielded
/// by a piece of high enough jump-rank.
const SHIELDED_GENERAL_LINE: i32 = 40;
/// Penalty for an enemy Fire Demon at king distance `d` from the last royal (index `d`). At
/// distance ≤ 4 its area move (3 steps) plus its burn can reach the royal next move.
const FIRE_DEMON_NEAR: [i32; 7] = [0, 400, 300, 250, 200, 80, 30];
/// Share (per mille) of the promotion gain credited at 0..=4 ranks from the promotion zone
/// (0 = inside it, where a capture can promote).
const PROMOTION_SHARE: [i32; 5] = [100, 80, 50, 30, 10];

/// Evaluation tables for one rule set (ranging directions depend on the rules).
#[derive(Clone)]
pub struct StaticEval {
    pub cfg: EvalConfig,
    /// Material value per board-cell code (0 for empty and guard cells).
    value: [i32; 256],
    /// Value gained by promoting, per cell code (0 if the piece cannot promote).
    promo_gain: [i32; 256],
    /// Directions with range ≥ 2, per cell code.
    ranging: [u8; 256],
    ride_max: [[u8; 8]; 256],
    ride_skip: [u8; 256],
    royal: [bool; 256],
    fire_demon: [bool; 256],
    /// Range-jump directions and power, per cell code.
    range_jump: [u8; 256],
    jump_power: [u8; 256],
    rank: [u8; 256],
}

impl StaticEval {
    pub fn new(t: &MoveTable, cfg: EvalConfig) -> StaticEval {
        let mut e = StaticEval {
            cfg,
            value: [0; 256],
            promo_gain: [0; 256],
            ranging: [0; 256],
            ride_max: [[0; 8]; 256],
            ride_skip: [0; 256],
            royal: [false; 256],
            fire_demon: [false; 256],
            range_jump: [0; 256],
            jump_power: [0; 256],
            rank: [0; 256],
        };
        for p in Piece::all() {
            let code = p.code() as usize;
            debug_assert!(code < NUM_CODES);
            let c = t.get(p.code());
            e.value[code] = piece_value(p.kind());
            if p.can_promote() {
                e.promo_gain[code] = (piece_value(p.promote().kind()) - piece_value(p.kind())).max(0);
                if p.promote().kind().is_royal() {
                    // A Prince is a second royal: worth far more than its material value.
                    e.promo_gain[code] += 1000;
                }
            }
            for d in 0..8 {
                if c.ride_max[d] >= 2 {
                    e.ranging[code] |= 1 << d;
                }
            }
            e.ride_max[code] = c.ride_max;
            e.ride_skip[code] = c.ride_skip;
            e.royal[code] = c.royal;
            e.fire_demon[code] = c.is_fire_demon;
            e.range_jump[code] = c.range_jump;
            e.jump_power[code] = c.jump_power;
            e.rank[code] = c.rank;
        }
        e
    }

    /// Material value of a cell code (0 for an empty cell).
    #[inline]
    pub fn value_of_code(&self, code: u8) -> i32 {
        self.value[code as usize]
    }

    /// Material balance (Black minus White), royals included.
    pub fn material_black(&self, pos: &Position) -> i32 {
        let mut s = 0;
        for c in [Color::Black, Color::White] {
            let sign = if c == Color::Black { 1 } else { -1 };
            for_each_square(pos, c, |pad| s += sign * self.value[pos.cell(pad) as usize]);
        }
        s
    }

    /// The evaluation from the side to move's point of view.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let mut score = [0i32; 2];
        let mut royals: [[usize; 2]; 2] = [[0; 2]; 2];
        let mut n_royals = [0usize; 2];
        let mut fds: [[usize; 8]; 2] = [[0; 8]; 2];
        let mut n_fds = [0usize; 2];
        let mut gens: [[usize; 16]; 2] = [[0; 16]; 2];
        let mut n_gens = [0usize; 2];
        let cfg = self.cfg;
        for c in [Color::Black, Color::White] {
            let ci = c.index();
            let mut s = 0;
            for_each_square(pos, c, |pad| {
                let code = pos.cell(pad) as usize;
                s += self.value[code];
                if cfg.mobility != 0 && self.ranging[code] != 0 {
                    s += cfg.mobility * self.mobility(pos, pad, code, ci);
                }
                if cfg.promotion != 0 && self.promo_gain[code] != 0 {
                    let rank = pad as i32 / PAD_W - 2;
                    let dist = if c == Color::Black { 11 - rank } else { rank - 4 }.max(0) as usize;
                    if dist < PROMOTION_SHARE.len() {
                        s += self.promo_gain[code] * PROMOTION_SHARE[dist] * cfg.promotion / 100_000;
                    }
                }
                if cfg.royal_safety {
                    if self.royal[code] && n_royals[ci] < 2 {
                        royals[ci][n_royals[ci]] = pad;
                        n_royals[ci] += 1;
                    } else if self.fire_demon[code] && n_fds[ci] < 8 {
                        fds[ci][n_fds[ci]] = pad;
                        n_fds[ci] += 1;
                    } else if self.range_jump[code] != 0 && n_gens[ci] < 16 {
                        gens[ci][n_gens[ci]] = pad;
                        n_gens[ci] += 1;
                    }
                }
            });
            score[ci] = s;
        }
        if cfg.royal_safety {
            for ci in 0..2 {
                if n_royals[ci] != 1 {
                    continue;
                }
                let r = royals[ci][0];
                let ei = 1 - ci;
                let mut pen = 0;
                for &f in &fds[ei][..n_fds[ei]] {
                    let d = king_distance(f, r);
                    if d < FIRE_DEMON_NEAR.len() {
                        pen += FIRE_DEMON_NEAR[d];
                    }
                }
                for &g in &gens[ei][..n_gens[ei]] {
                    pen += self.general_line_penalty(pos, g, r);
                }
                score[ci] -= pen;
            }
        }
        let us = pos.side_to_move().index();
        score[us] - score[1 - us]
    }

    /// Squares reachable by the ranging moves of the piece on `pad`.
    #[inline]
    fn mobility(&self, pos: &Position, pad: usize, code: usize, ci: usize) -> i32 {
        let mut n = 0;
        let mut m = self.ranging[code];
        let skip = self.ride_skip[code];
        while m != 0 {
            let d = m.trailing_zeros() as usize;
            m &= m - 1;
            let off = dir::OFFSET[d];
            let max = self.ride_max[code][d] as i32;
            let mut k = 1;
            let mut s = pad as i32 + off;
            if skip & (1 << d) != 0 {
                k = 2;
                s += off;
            }
            while k <= max {
                let cell = pos.cell(s as usize);
                if cell == 0 {
                    n += 1;
                } else {
                    if cell != engine::board::GUARD && ((cell - 1) & 1) as usize != ci {
                        n += 1;
                    }
                    break;
                }
                k += 1;
                s += off;
            }
        }
        n
    }

    /// Penalty for the enemy general on `g` if the royal on `r` lies on one of its jump lines.
    fn general_line_penalty(&self, pos: &Position, g: usize, r: usize) -> i32 {
        let code = pos.cell(g) as usize;
        let (gf, gr) = (g as i32 % PAD_W, g as i32 / PAD_W);
        let (rf, rr) = (r as i32 % PAD_W, r as i32 / PAD_W);
        let (df, dr) = (rf - gf, rr - gr);
        if !(df == 0 || dr == 0 || df.abs() == dr.abs()) {
            return 0;
        }
        let step = (df.signum(), dr.signum());
        let Some(d) = dir::DELTA.iter().position(|&x| x == step) else { return 0 };
        if self.range_jump[code] & (1 << d) == 0 {
            return 0;
        }
        let off = dir::OFFSET[d];
        let power = self.jump_power[code];
        let mut s = g as i32 + off;
        let mut shielded = false;
        while s as usize != r {
            let cell = pos.cell(s as usize);
            if cell != 0 && self.rank[cell as usize] >= power {
                shielded = true;
                break;
            }
            s += off;
        }
        if shielded {
            SHIELDED_GENERAL_LINE
        } else {
            OPEN_GENERAL_LINE
        }
    }
}

#[inline]
fn king_distance(a: usize, b: usize) -> usize {
    let (af, ar) = (a as i32 % PAD_W, a as i32 / PAD_W);
    let (bf, br) = (b as i32 % PAD_W, b as i32 / PAD_W);
    (af - bf).abs().max((ar - br).abs()) as usize
}

/// Call `f` with the padded cell of every piece of `c`.
#[inline]
fn for_each_square(pos: &Position, c: Color, mut f: impl FnMut(usize)) {
    let occ = pos.dense_occ(c);
    for (w, word) in occ.iter().enumerate() {
        let mut bits = *word;
        while bits != 0 {
            let i = w * 64 + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            f(Square::from_index(i).pad());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::rules::Rules;

    #[test]
    fn start_position_is_balanced_and_values_are_positive() {
        let t = MoveTable::new(&Rules::standard());
        let e = StaticEval::new(&t, EvalConfig::default());
        let p = Position::start();
        assert_eq!(e.evaluate(&p), 0);
        assert_eq!(e.material_black(&p), 0);
        for k in engine::Kind::ALL {
            assert!(piece_value(k) > 0, "{k:?}");
        }
        // Mirror symmetry: the mirrored position scores the same for its side to move.
        for (_, fen) in engine::perft::bench_positions() {
            let p = Position::from_fen(&fen).unwrap();
            assert_eq!(e.evaluate(&p), e.evaluate(&p.mirrored()), "{fen}");
        }
    }
}
