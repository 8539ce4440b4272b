//! Static move facts for ordering and quiescence (what a move captures or burns, read off the
//! board without playing it), and the check test (could the side to move lose its last royal
//! on the opponent's next move) used by the check extension.

use crate::alphabeta::eval::StaticEval;
use crate::values::ROYAL_ORDER_VALUE;
use engine::board::GUARD;
use engine::board::{dir, PAD_W};
use engine::board::{AreaKind, Compiled};
use engine::generate_piece;
use engine::MoveTable;
use engine::Position;
use engine::{Color, Square};
use engine::{Move, MoveList};

/// Static facts about a move.
#[derive(Clone, Copy, Default)]
pub(super) struct Facts {
    /// Value of the enemy pieces it captures or burns (a royal counts [`ROYAL_ORDER_VALUE`]).
    pub gain: i32,
    /// It may remove an enemy piece (capture or burn): a quiescence move. A superset of the
    /// moves that do (a Fire Demon ending next to an enemy Fire Demon burns nothing).
    pub removes: bool,
    /// It captures or burns an enemy royal.
    pub royal_hit: bool,
    /// The mover ends next to a surviving enemy Fire Demon and burns (§6.2).
    pub mover_burned: bool,
}

/// Fire Demons and royals of one side (padded cells).
#[derive(Clone, Copy, Default)]
pub(super) struct Watch {
    pub fds: [usize; 8],
    pub n_fds: usize,
    pub royals: [usize; 4],
    pub n_royals: usize,
}

/// Per-rules tables for the check test, and its scratch move list.
pub(crate) struct Threats {
    /// [`near_reach`] per cell code.
    near_reach: [u8; 256],
    /// [`is_burner`] per cell code.
    burner: [bool; 256],
    scratch: MoveList,
}

/// Whether a piece burns, or may promote to a piece that burns at once (Water Buffalo).
fn is_burner(t: &MoveTable, code: u8) -> bool {
    let c = t.get(code);
    c.is_piece && (c.burns || (c.promote_to != 0 && t.get(c.promote_to).burns && t.rules.wb_promotion_burns))
}

/// How far (king steps) a piece's moves other than rides and range jumps reach.
fn near_reach(t: &MoveTable, code: u8) -> u8 {
    let c = t.get(code);
    if !c.is_piece {
        return 0;
    }
    let mut r = 0;
    if c.ride_max.iter().any(|&m| m >= 1) || c.igui != 0 {
        r = 1;
    }
    if c.jump2 != 0
        || c.knight
        || c.lion
        || c.linear_lion != 0
        || c.bent_lion_first != 0
        || c.ferz_twice
        || c.ride_skip != 0
    {
        r = r.max(2);
    }
    if c.area != AreaKind::None {
        r = r.max(c.area_k);
    }
    r
}

/// Whether the piece `c` on `from` could move to `target` along one of its lines: a range
/// jump in that direction, or a ride long enough over an empty path.
#[inline]
fn ray_reaches(pos: &Position, c: &Compiled, from: usize, target: usize) -> bool {
    let (df, dr) = (target as i32 % PAD_W - from as i32 % PAD_W, target as i32 / PAD_W - from as i32 / PAD_W);
    if !(df == 0 || dr == 0 || df.abs() == dr.abs()) || (df == 0 && dr == 0) {
        return false;
    }
    let dist = df.abs().max(dr.abs());
    let Some(d) = dir::DELTA.iter().position(|&x| x == (df.signum(), dr.signum())) else { return false };
    if c.range_jump & (1 << d) != 0 {
        return true;
    }
    if (c.ride_max[d] as i32) < dist {
        return false;
    }
    let off = dir::OFFSET[d];
    let first = if c.ride_skip & (1 << d) != 0 { 2 } else { 1 };
    (first..dist).all(|k| pos.cell((from as i32 + k * off) as usize) == 0)
}

/// King-step neighbours (padded cells).
#[inline]
pub(super) fn adjacent(a: usize, b: usize) -> bool {
    let d = a as i32 - b as i32;
    a != b && matches!(d.abs(), 1 | 19 | 20 | 21)
}

/// The Fire Demons and royals of `c`.
pub(super) fn watch(t: &MoveTable, pos: &Position, c: Color) -> Watch {
    let mut w = Watch::default();
    for (wi, word) in pos.dense_occ(c).iter().enumerate() {
        let mut bits = *word;
        while bits != 0 {
            let pad = Square::from_index(wi * 64 + bits.trailing_zeros() as usize).pad();
            bits &= bits - 1;
            let p = t.get(pos.cell(pad));
            if p.is_fire_demon && w.n_fds < 8 {
                w.fds[w.n_fds] = pad;
                w.n_fds += 1;
            } else if p.royal && w.n_royals < 4 {
                w.royals[w.n_royals] = pad;
                w.n_royals += 1;
            }
        }
    }
    w
}

#[inline]
fn add_victim(t: &MoveTable, ev: &StaticEval, f: &mut Facts, code: u8) {
    if t.get(code).royal {
        f.royal_hit = true;
        f.gain += ROYAL_ORDER_VALUE;
    } else {
        f.gain += ev.value_of_code(code);
    }
}

/// Facts of `m` for the side to move; `enemy` holds the opponent's Fire Demons.
pub(super) fn facts(t: &MoveTable, ev: &StaticEval, pos: &Position, m: Move, enemy: &Watch) -> Facts {
    let mut f = Facts::default();
    if m.is_null_pass() {
        return f;
    }
    let from = m.from_pad();
    let to = m.to_pad();
    let code = pos.cell(from);
    let mut caps = [0usize; 3];
    let mut nc = 0;
    for v in m.via_pad() {
        let v = v as usize;
        if v != 0 && pos.cell(v) != 0 {
            add_victim(t, ev, &mut f, pos.cell(v));
            caps[nc] = v;
            nc += 1;
        }
    }
    if to != from && pos.cell(to) != 0 {
        add_victim(t, ev, &mut f, pos.cell(to));
        caps[nc] = to;
        nc += 1;
    }
    let caps = &caps[..nc];
    f.mover_burned = enemy.fds[..enemy.n_fds].iter().any(|&fd| adjacent(fd, to) && !caps.contains(&fd));
    let c = t.get(code);
    let final_code = if m.promotes() { c.promote_to } else { code };
    if t.get(final_code).burns && (c.is_fire_demon || t.rules.wb_promotion_burns) {
        let white = c.white;
        for &o in dir::OFFSET.iter() {
            let s = (to as i32 + o) as usize;
            let sc = pos.cell(s);
            let p = t.get(sc);
            if p.is_piece && p.white != white && !caps.contains(&s) {
                f.removes = true;
                if !f.mover_burned && !p.is_fire_demon {
                    add_victim(t, ev, &mut f, sc);
                }
            }
        }
    }
    f.removes |= nc > 0;
    f
}

impl Threats {
    pub(crate) fn new(t: &MoveTable) -> Threats {
        Threats {
            near_reach: std::array::from_fn(|code| near_reach(t, code as u8)),
            burner: std::array::from_fn(|code| is_burner(t, code as u8)),
            scratch: MoveList::new(),
        }
    }

    /// Whether the side to move could lose its last royal on the opponent's next move (it is
    /// "in check", §9; never with two royals).
    ///
    /// Only enemy pieces that could reach the royal are generated: those whose step, jump,
    /// lion or area moves reach its distance, those on a line through it with a range jump or
    /// a long enough ride over an empty path, and burners (Fire Demons, Water Buffaloes that
    /// may promote) that could reach a square next to it.
    pub(crate) fn in_check(&mut self, t: &MoveTable, pos: &Position) -> bool {
        let us = pos.side_to_move();
        if pos.royal_count(us) != 1 {
            return false;
        }
        let mine = watch(t, pos, us);
        if mine.n_royals != 1 {
            return false;
        }
        let r = mine.royals[0];
        let mut p = *pos;
        p.set_side_to_move(us.other());
        for (wi, word) in pos.dense_occ(us.other()).iter().enumerate() {
            let mut bits = *word;
            while bits != 0 {
                let sq = Square::from_index(wi * 64 + bits.trailing_zeros() as usize);
                bits &= bits - 1;
                let pad = sq.pad();
                let code = pos.cell(pad);
                let c = t.get(code);
                let dist = ((r as i32 % PAD_W) - (pad as i32 % PAD_W))
                    .abs()
                    .max((r as i32 / PAD_W - pad as i32 / PAD_W).abs());
                let burner = self.burner[code as usize];
                let reach = self.near_reach[code as usize] as i32 + burner as i32;
                let candidate = dist <= reach
                    || ray_reaches(pos, c, pad, r)
                    || (burner
                        && dir::OFFSET.iter().any(|&o| {
                            let a = (r as i32 + o) as usize;
                            pos.cell(a) != GUARD && ray_reaches(pos, c, pad, a)
                        }));
                if !candidate {
                    continue;
                }
                generate_piece(pos, t, sq, &mut self.scratch);
                for &m in self.scratch.iter() {
                    let to = m.to_pad();
                    let mut hit = to == r || m.via_pad().iter().any(|&v| v as usize == r);
                    if !hit && burner && adjacent(to, r) {
                        let final_code = if m.promotes() { c.promote_to } else { code };
                        hit = t.get(final_code).burns;
                    }
                    if hit {
                        let mut q = p;
                        q.play(t, m);
                        if q.royal_count(us) == 0 {
                            return true;
                        }
                    }
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::rules::Rules;
    use rand::seq::SliceRandom;
    use rand::SeedableRng;

    /// Reference: generate every opponent move and play each one.
    fn in_check_slow(t: &MoveTable, pos: &Position) -> bool {
        let us = pos.side_to_move();
        if pos.royal_count(us) != 1 {
            return false;
        }
        let mut p = *pos;
        p.set_side_to_move(us.other());
        engine::legal_moves(&p, t).into_iter().any(|m| {
            let mut q = p;
            q.play(t, m);
            q.royal_count(us) == 0
        })
    }

    #[test]
    fn in_check_matches_full_generation_on_random_games() {
        for rules in [Rules::standard(), Rules::house(), Rules::hachu()] {
            let t = MoveTable::new(&rules);
            let mut th = Threats::new(&t);
            let mut checks = 0;
            for seed in 0..6u64 {
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
                let mut pos = Position::start();
                for _ in 0..400 {
                    if pos.is_finished() {
                        break;
                    }
                    let slow = in_check_slow(&t, &pos);
                    checks += slow as u32;
                    assert_eq!(th.in_check(&t, &pos), slow, "{}", pos.to_fen());
                    let moves = engine::legal_moves(&pos, &t);
                    let Some(&m) = moves.choose(&mut rng) else { break };
                    pos.play(&t, m);
                }
            }
            assert!(checks > 0);
        }
    }

    #[test]
    fn facts_see_captures_and_burns() {
        let t = MoveTable::new(&Rules::standard());
        let ev = StaticEval::new(&t, crate::alphabeta::eval::EvalConfig::default());
        for seed in 0..4u64 {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let mut pos = Position::start();
            for _ in 0..300 {
                let moves = engine::legal_moves(&pos, &t);
                let us = pos.side_to_move();
                let enemy = watch(&t, &pos, us.other());
                for &m in &moves {
                    let f = facts(&t, &ev, &pos, m, &enemy);
                    let mut q = pos;
                    let eff = q.play(&t, m);
                    let removed = eff.is_capture() || eff.burned().any(|(_, p)| p.color() != us);
                    assert!(f.removes || !removed, "{m} removes an enemy in {}", pos.to_fen());
                    assert_eq!(f.mover_burned, eff.mover_burned, "{m} in {}", pos.to_fen());
                }
                let Some(&m) = moves.choose(&mut rng) else { break };
                pos.play(&t, m);
            }
        }
    }
}
