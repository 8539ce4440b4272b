//! The root of the alpha-beta search: iterative deepening with aspiration windows, the root
//! move order, and the search of the root moves.

use super::{
    is_irreversible, threats, SearchResult, Searcher, DEFAULT_MOVETIME, INF, MATE, MATE_BOUND, MAX_DEPTH, MAX_PLY,
};
use crate::{Limits, Thinking};
use engine::Game;
use engine::{Move, Position};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::time::{Duration, Instant};

impl Searcher {
    /// Search the root moves (in their current order) to `depth` in the window. Returns the
    /// best score, with `best` updated to each root move that raised alpha in a completed
    /// search; `None` if the search was stopped.
    pub(super) fn search_root(
        &mut self,
        pos: &mut Position,
        moves: &[Move],
        depth: i32,
        mut alpha: i32,
        beta: i32,
        best: &mut Option<(usize, i32)>,
    ) -> Option<i32> {
        self.pv_len[0] = 0;
        let mut best_score = -INF;
        let check_ext = self.cfg.check_extension && self.th.in_check(&self.t, pos);
        let depth = depth + check_ext as i32;
        for (k, &m) in moves.iter().enumerate() {
            let eff = pos.play(&self.t, m);
            self.enter(1, pos.hash(), &eff);
            let score = if k == 0 {
                -self.search(pos, depth - 1, -beta, -alpha, 1)
            } else {
                let mut s = -self.search(pos, depth - 1, -alpha - 1, -alpha, 1);
                if s > alpha && s < beta && !self.stop {
                    s = -self.search(pos, depth - 1, -beta, -alpha, 1);
                }
                s
            };
            pos.unplay(m, &eff);
            if self.stop {
                return None;
            }
            if score > best_score {
                best_score = score;
                if score > alpha {
                    alpha = score;
                    *best = Some((k, score));
                    self.update_pv(0, m);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        Some(best_score)
    }

    /// Iterative deepening from the game's current position.
    pub(super) fn think(
        &mut self,
        game: &Game,
        limits: &Limits,
        seed: u64,
        info: &mut dyn FnMut(&Thinking),
    ) -> SearchResult {
        let start = Instant::now();
        let mut pos = *game.position();
        let moves = game.legal_moves();
        if moves.is_empty() {
            // Not reached through `Player::choose` (the game is not over).
            return SearchResult {
                best: Move::NULL_PASS,
                score: 0,
                depth: 0,
                nodes: 0,
                time: Duration::ZERO,
                pv: vec![],
            };
        }
        let (budget, max_depth) = self.start_limits(limits, start);
        self.start_path(game);
        if let Some((m, score)) = self.winning_root_move(&pos, &moves) {
            let r = SearchResult { best: m, score, depth: 1, nodes: 1, time: start.elapsed(), pv: vec![m] };
            info(&Thinking { depth: 1, score_cp: r.score, wdl: None, nodes: 1, time: r.time, pv: r.pv.clone() });
            return r;
        }
        let mut moves = self.ordered_root_moves(&pos, moves, seed);
        let mut result =
            SearchResult { best: moves[0], score: 0, depth: 0, nodes: 0, time: Duration::ZERO, pv: vec![moves[0]] };
        if moves.len() == 1 {
            result.time = start.elapsed();
            return result;
        }
        let mut prev_score: i32 = 0;
        for depth in 1..=max_depth {
            let Some(score) = self.iteration(&mut pos, &mut moves, depth, prev_score, &mut result) else { break };
            prev_score = score;
            result.score = score;
            result.depth = depth as u32;
            result.nodes = self.nodes;
            result.time = start.elapsed();
            info(&Thinking {
                depth: depth as u32,
                score_cp: score,
                wdl: None,
                nodes: self.nodes,
                time: result.time,
                pv: result.pv.clone(),
            });
            if score.abs() > MATE_BOUND && (MATE - score.abs()) <= depth {
                break; // a forced result within the horizon
            }
            if let Some(b) = budget {
                // The next iteration costs several times this one: do not start it late.
                if start.elapsed() > b.mul_f64(0.4) {
                    break;
                }
            }
            if self.nodes >= self.node_limit {
                break;
            }
        }
        result.nodes = self.nodes;
        result.time = start.elapsed();
        if !game.legal_moves().contains(&result.best) {
            result.best = moves[0]; // never happens; keeps the promise to return a legal move
        }
        result
    }

    /// Reset the node count and stop flag, set the node limit and deadline; returns the time
    /// budget and the deepest iteration.
    fn start_limits(&mut self, limits: &Limits, start: Instant) -> (Option<Duration>, i32) {
        self.nodes = 0;
        self.stop = false;
        self.node_limit = limits.nodes.unwrap_or(u64::MAX).max(1);
        let nothing_set = limits.depth.is_none() && limits.nodes.is_none() && limits.time_budget().is_none();
        let budget = if nothing_set {
            Limits { movetime: Some(DEFAULT_MOVETIME), ..*limits }.time_budget()
        } else {
            limits.time_budget()
        };
        self.deadline = budget.map(|b| start + b);
        (budget, limits.depth.unwrap_or(MAX_DEPTH).clamp(1, MAX_DEPTH) as i32)
    }

    /// The path for repetitions (the game's positions since the last irreversible move), a new
    /// TT generation, and aged history scores.
    fn start_path(&mut self, game: &Game) {
        self.path.clear();
        let plies = game.plies();
        for p in plies {
            self.path.push(p.before.hash());
        }
        self.path.push(game.position().hash());
        self.base = plies.len();
        self.floor[0] = plies.iter().rposition(|p| is_irreversible(&p.effect)).map_or(0, |i| i + 1);
        self.tt.new_search();
        for h in self.history.iter_mut() {
            *h /= 4;
        }
    }

    /// A root move that takes the opponent's last royal, and its score: it wins at once.
    fn winning_root_move(&self, pos: &Position, moves: &[Move]) -> Option<(Move, i32)> {
        moves.iter().find_map(|&m| {
            let mut child = *pos;
            child.play(&self.t, m);
            self.terminal(&child, 1).map(|s| (m, -s)).filter(|&(_, score)| score > 0)
        })
    }

    /// The root moves in static order: a seeded shuffle (ties differ by seed), then by ordering
    /// score.
    fn ordered_root_moves(&self, pos: &Position, mut moves: Vec<Move>, seed: u64) -> Vec<Move> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ pos.hash());
        moves.shuffle(&mut rng);
        let us = pos.side_to_move();
        let enemy = threats::watch(&self.t, pos, us.other());
        let tt_move = self.tt.probe(pos.hash()).and_then(|e| e.mv);
        let mut keyed: Vec<(i32, Move)> = moves
            .iter()
            .map(|&m| {
                let f = threats::facts(&self.t, &self.ev, pos, m, &enemy);
                let attacker = if m.is_null_pass() { 0 } else { self.ev.value_of_code(pos.cell(m.from_pad())) };
                (self.order_score(m, &f, tt_move, 0, attacker), m)
            })
            .collect();
        keyed.sort_by_key(|k| std::cmp::Reverse(k.0));
        keyed.into_iter().map(|x| x.1).collect()
    }

    /// One iteration of the deepening at `depth`, in an aspiration window around the previous
    /// score when those are on (widened until the score falls inside). A root move that raised
    /// alpha in a completed search moves to the front and becomes `result`'s best move.
    /// `None` when the search was stopped.
    fn iteration(
        &mut self,
        pos: &mut Position,
        moves: &mut Vec<Move>,
        depth: i32,
        prev_score: i32,
        result: &mut SearchResult,
    ) -> Option<i32> {
        let mut delta = self.cfg.aspiration_delta.max(1);
        let (mut alpha, mut beta) = if self.cfg.aspiration && depth >= 3 && prev_score.abs() < MATE_BOUND {
            (prev_score - delta, prev_score + delta)
        } else {
            (-INF, INF)
        };
        self.leaf_check_ply = (2 * depth as usize).min(MAX_PLY - 16);
        loop {
            let mut best = None;
            let r = self.search_root(pos, moves, depth, alpha, beta, &mut best);
            if let Some((k, _)) = best {
                let m = moves.remove(k);
                moves.insert(0, m);
                result.best = m;
                result.pv = self.pv[0][..self.pv_len[0]].to_vec();
            }
            let score = r?;
            if score <= alpha && alpha > -INF {
                alpha = (score - delta).max(-INF);
                delta = delta.saturating_mul(4);
                continue;
            }
            if score >= beta && beta < INF {
                beta = (score + delta).min(INF);
                delta = delta.saturating_mul(4);
                continue;
            }
            return Some(score);
        }
    }
}
