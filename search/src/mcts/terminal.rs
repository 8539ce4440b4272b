//! Terminal nodes of the MCTS tree, checked when a node is created, in the order of
//! `Game::play`.
//!
//! * a side without royals (RULES.md §9; both: `double_royal_loss`): win/loss;
//! * repetition, judged on the root game's hashes plus the hashes along the path:
//!   - `forbidden`: the move is illegal; scored as a loss for the side that made it (exactly
//!     what the rule amounts to: an illegal move is never chosen, and a side whose every move
//!     is illegal has no legal move and loses);
//!   - `loss_for_repeater`: the repeater loses, or wins when it was in check;
//!   - `jcsa`: a 4th (or later) occurrence gets the exact verdict of `engine::game` (a copy of
//!     the root game replays the path: draw, or the move is illegal for a perpetual
//!     checker/attacker, or the game goes on); a **2nd or 3rd occurrence is scored as a draw**
//!     for search purposes (the usual MCTS simplification; the root's moves always come from
//!     `Game::legal_moves`, so the move actually played is always legal);
//! * ply cap and `no_capture_draw_plies`: draw;
//! * no legal move: loss for the side to move;
//! * the side to move can take the opponent's last royal at once: win for it (a one-ply
//!   proof, found by looking only at moves that land on or pass over an enemy royal, or that
//!   burn next to one; such nodes need no network call).

use super::tree::IdHash;
use crate::alphabeta::threats::Threats;
use engine::board::dir;
use engine::generate;
use engine::rules::{DoubleRoyalLoss, Repetition};
use engine::MoveTable;
use engine::Position;
use engine::{gives_check, Game, Outcome};
use engine::{Move, MoveList};
use std::collections::HashMap;

/// What a new node is.
pub(super) enum Class {
    Terminal(i8),
    /// Not terminal; the moves are in the scratch list.
    Open {
        reps: u32,
    },
}

/// Decide whether the position after `mv` (reached along `path_moves` from the root game)
/// ends the game for search purposes; if not, its moves are left in `list`.
#[allow(clippy::too_many_arguments)]
pub(super) fn classify(
    t: &MoveTable,
    game: &Game,
    history: &HashMap<u64, u32, IdHash>,
    path_hashes: &[u64],
    path_moves: &[Move],
    mv: Move,
    child: &Position,
    ply: u32,
    quiet: u32,
    list: &mut MoveList,
) -> Class {
    let rules = &t.rules;
    let them = child.side_to_move();
    let mover = them.other();
    match (child.royal_count(mover), child.royal_count(them)) {
        (0, 0) => {
            return Class::Terminal(match rules.double_royal_loss {
                DoubleRoyalLoss::MoverWins => -1,
                DoubleRoyalLoss::MoverLoses => 1,
                DoubleRoyalLoss::Draw => 0,
            })
        }
        (_, 0) => return Class::Terminal(-1),
        (0, _) => return Class::Terminal(1),
        _ => {}
    }
    let h = child.hash();
    let reps = history.get(&h).copied().unwrap_or(0) + path_hashes.iter().filter(|&&x| x == h).count() as u32;
    if reps > 0 {
        match rules.repetition {
            Repetition::Forbidden => return Class::Terminal(1),
            Repetition::LossForRepeater => {
                let mut parent = *game.position();
                for &m in path_moves {
                    parent.play(t, m);
                }
                let mover_in_check = gives_check(t, &parent, them);
                return Class::Terminal(if mover_in_check { -1 } else { 1 });
            }
            Repetition::Jcsa if reps < 3 => return Class::Terminal(0),
            Repetition::Jcsa => {
                let mut g = game.clone();
                for &m in path_moves {
                    if g.play(m).is_err() {
                        return Class::Terminal(0);
                    }
                }
                match g.play(mv) {
                    Err(_) => return Class::Terminal(1),
                    Ok(_) => match g.outcome() {
                        Some(Outcome::Draw(_)) => return Class::Terminal(0),
                        Some(o) => return Class::Terminal(if o.winner() == Some(mover) { -1 } else { 1 }),
                        None => {}
                    },
                }
            }
        }
    }
    if rules.ply_cap > 0 && ply >= rules.ply_cap {
        return Class::Terminal(0);
    }
    if rules.no_capture_draw_plies > 0 && quiet >= rules.no_capture_draw_plies {
        return Class::Terminal(0);
    }
    generate(child, t, list);
    if list.is_empty() {
        return Class::Terminal(-1);
    }
    if winning_move(child, t, list.as_slice()).is_some() {
        return Class::Terminal(1);
    }
    Class::Open { reps }
}

/// Royal guard screen of the moves `moves` of `pos`: `out[i]` is set when move `i` leaves the
/// mover without royals or lets the opponent take its last royal on the next move (the
/// alpha-beta engine's check test). Returns whether every move is such a loss (false for an
/// empty list). A side with two royals is never in check, so its moves all pass.
pub(super) fn screen_royal_losses(
    t: &MoveTable,
    pos: &Position,
    moves: &[Move],
    threats: &mut Threats,
    out: &mut Vec<bool>,
) -> bool {
    out.clear();
    let mover = pos.side_to_move();
    if pos.royal_count(mover) != 1 {
        out.resize(moves.len(), false);
        return false;
    }
    let mut all = !moves.is_empty();
    for &m in moves {
        let lost = loses_royal_at_once(t, pos, m, threats);
        all &= lost;
        out.push(lost);
    }
    all
}

/// Whether `m` leaves its mover (the side to move in `pos`, with one royal) without royals or
/// lets the opponent take its last royal on the next move; a move that takes the opponent's
/// last royal never does.
fn loses_royal_at_once(t: &MoveTable, pos: &Position, m: Move, threats: &mut Threats) -> bool {
    let mover = pos.side_to_move();
    let mut p = *pos;
    p.play(t, m);
    if p.royal_count(mover) == 0 {
        return true;
    }
    if p.royal_count(mover.other()) == 0 {
        return false;
    }
    p.set_side_to_move(mover);
    threats.in_check(t, &p)
}

/// Mate guard: whether the side to move in `after` (the opponent of the side that has just
/// moved there) has a reply that takes that side's last royal at once, or that attacks it and
/// leaves no escape (every move of the side lets its last royal be taken at once, or it has no
/// move): a mate in one. Only replies after which the royal is attacked are looked at (a
/// position where every move exposes an unattacked royal is not searched for). A side with
/// two royals is never mated in one. `replies` and `ours` are scratch lists.
pub(super) fn allows_mate_in_one(
    t: &MoveTable,
    after: &Position,
    threats: &mut Threats,
    replies: &mut MoveList,
    ours: &mut MoveList,
) -> bool {
    let them = after.side_to_move();
    let us = them.other();
    if after.royal_count(us) != 1 || after.royal_count(them) == 0 {
        return false;
    }
    generate(after, t, replies);
    for &r in replies.iter() {
        let mut p = *after;
        p.play(t, r);
        if p.royal_count(us) == 0 {
            return true;
        }
        if p.royal_count(them) == 0 || !threats.in_check(t, &p) {
            continue;
        }
        generate(&p, t, ours);
        if ours.iter().all(|&e| loses_royal_at_once(t, &p, e, threats)) {
            return true;
        }
    }
    false
}

/// Royal flags by cell code: 1 Black royal, 2 White royal, 0 anything else.
fn royal_codes() -> &'static [u8; 256] {
    static T: std::sync::OnceLock<[u8; 256]> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let mut t = [0u8; 256];
        for p in engine::Piece::all() {
            if p.kind().is_royal() {
                t[p.code() as usize] = 1 + p.color().index() as u8;
            }
        }
        t
    })
}

/// Index in `moves` of a move that wins at once (takes or burns the opponent's last royal and
/// wins under `double_royal_loss`). Only moves that capture on or pass over an enemy royal's
/// square, or that end next to one with a burning piece, are played out.
pub(super) fn winning_move(pos: &Position, t: &MoveTable, moves: &[Move]) -> Option<usize> {
    let us = pos.side_to_move();
    let them = us.other();
    let royal = royal_codes();
    let enemy = 1 + them.index() as u8;
    let is_enemy_royal = |pad: usize| royal[pos.cell(pad) as usize] == enemy;
    let (mut last_from, mut burns) = (usize::MAX, false);
    for (i, &m) in moves.iter().enumerate() {
        if m.is_null_pass() {
            continue;
        }
        let to = m.to_pad();
        let mut candidate = is_enemy_royal(to) || m.via_pad().iter().any(|&v| v != 0 && is_enemy_royal(v as usize));
        if !candidate {
            let from = m.from_pad();
            if from != last_from {
                last_from = from;
                let mover = t.get(pos.cell(from));
                burns = mover.burns || (mover.promote_to != 0 && t.get(mover.promote_to).burns);
            }
            candidate = burns
                && mover_burns_here(t, pos, m)
                && dir::OFFSET.iter().any(|&o| is_enemy_royal((to as i32 + o) as usize));
        }
        if candidate {
            let mut p = *pos;
            p.play(t, m);
            let win = match (p.royal_count(us), p.royal_count(them)) {
                (0, 0) => t.rules.double_royal_loss == DoubleRoyalLoss::MoverWins,
                (_, 0) => true,
                _ => false,
            };
            if win {
                return Some(i);
            }
        }
    }
    None
}

/// Whether the piece making `m` burns at its destination (a Fire Demon, or a piece promoting
/// into one).
#[inline]
fn mover_burns_here(t: &MoveTable, pos: &Position, m: Move) -> bool {
    let mover = t.get(pos.cell(m.from_pad()));
    mover.burns || (m.promotes() && t.get(mover.promote_to).burns)
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Rules;
    use rand::{Rng, SeedableRng};

    /// Slow reference of the check test: every reply of the opponent played.
    fn royal_capturable(t: &MoveTable, pos: &Position, side: engine::Color) -> bool {
        let mut p = *pos;
        p.set_side_to_move(side.other());
        p.royal_count(side) == 1
            && engine::legal_moves(&p, t).into_iter().any(|r| {
                let mut q = p;
                q.play(t, r);
                q.royal_count(side) == 0
            })
    }

    /// The mate guard against a slow reference (every move generated with `legal_moves` and
    /// every check found by playing every reply) on random games: some moves are flagged,
    /// some are not (random play leaves royals open, so many are).
    #[test]
    fn mate_guard_matches_the_slow_reference_over_random_games() {
        let t = MoveTable::new(&Rules::standard());
        let mut th = Threats::new(&t);
        let (mut a, mut b) = (MoveList::new(), MoveList::new());
        let (mut flagged, mut clear) = (0, 0);
        for seed in 0..2u64 {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(100 + seed);
            let mut pos = Position::start();
            for ply in 0..36 {
                let moves = engine::legal_moves(&pos, &t);
                let us = pos.side_to_move();
                let them = us.other();
                if moves.is_empty() || pos.royal_count(us) == 0 || pos.royal_count(them) == 0 {
                    break;
                }
                if ply % 12 == 11 {
                    for &m in &moves {
                        let mut after = pos;
                        after.play(&t, m);
                        let fast = allows_mate_in_one(&t, &after, &mut th, &mut a, &mut b);
                        let slow = after.royal_count(us) == 1
                            && after.royal_count(them) > 0
                            && engine::legal_moves(&after, &t).into_iter().any(|r| {
                                let mut p = after;
                                p.play(&t, r);
                                p.royal_count(us) == 0
                                    || (p.royal_count(them) > 0
                                        && royal_capturable(&t, &p, us)
                                        && engine::legal_moves(&p, &t).into_iter().all(|e| {
                                            let mut q = p;
                                            q.play(&t, e);
                                            q.royal_count(us) == 0
                                                || (q.royal_count(them) > 0 && royal_capturable(&t, &q, us))
                                        }))
                            });
                        assert_eq!(fast, slow, "seed {seed} ply {ply} {m}: {}", engine::to_fen(&pos));
                        if fast {
                            flagged += 1;
                        } else {
                            clear += 1;
                        }
                    }
                }
                pos.play(&t, moves[rng.gen_range(0..moves.len())]);
            }
        }
        assert!(flagged > 10 && clear > 10, "flagged {flagged}, clear {clear}");
    }

    /// The screen against the slow reference (every opponent reply played) on random games.
    #[test]
    fn royal_guard_screen_matches_playing_every_reply() {
        let t = MoveTable::new(&Rules::standard());
        let mut th = Threats::new(&t);
        let mut out = Vec::new();
        for seed in 0..6u64 {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            let mut pos = Position::start();
            for ply in 0..80 {
                let moves = engine::legal_moves(&pos, &t);
                let mover = pos.side_to_move();
                if moves.is_empty() || pos.royal_count(mover) == 0 || pos.royal_count(mover.other()) == 0 {
                    break;
                }
                screen_royal_losses(&t, &pos, &moves, &mut th, &mut out);
                for (&m, &flag) in moves.iter().zip(&out) {
                    let mut p = pos;
                    p.play(&t, m);
                    let slow = p.royal_count(mover) == 0
                        || (pos.royal_count(mover) == 1
                            && p.royal_count(mover.other()) > 0
                            && engine::legal_moves(&p, &t).into_iter().any(|r| {
                                let mut q = p;
                                q.play(&t, r);
                                q.royal_count(mover) == 0
                            }));
                    assert_eq!(flag, slow, "seed {seed} ply {ply} {m}: {}", engine::to_fen(&pos));
                }
                pos.play(&t, moves[rng.gen_range(0..moves.len())]);
            }
        }
    }
}
