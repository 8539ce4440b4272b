//! The alpha-beta baseline engine (`alphabeta` engine spec).
//!
//! Iterative-deepening principal-variation search with
//! * a transposition table ([`crate::alphabeta::tt`], size in MB, `tt=0` turns it off);
//! * quiescence search over every move that removes an enemy piece: captures of the mover's
//!   legs and burns (a Fire Demon's move or a promotion to Fire Demon that burns something is a
//!   capture even when its own square was empty), with delta pruning;
//! * move ordering: TT move, MVV-LVA captures (victims include burned pieces), killers, history;
//! * a check extension: a node whose side to move could lose its last royal on the opponent's
//!   next move is searched one ply deeper (on by default: it won a 500 ms/move self-play match
//!   13–7, and was even at 100 ms/move; BENCHMARKS.md);
//! * optional aspiration windows around the previous iteration's score, and an optional
//!   check test at the horizon (off by default: neither saved nodes nor won games).
//!
//! Game end (RULES.md §9): a side without royals has lost (`-MATE + ply` for the side to move);
//! no legal move loses; a position that repeats one on the game's or the search's path scores
//! as a draw. A node where the side to move can take the opponent's last royal returns the win
//! at once. Checkmate is not terminal: it shows up as the royal's capture one ply later.
//!
//! Limits: depth, nodes and time ([`Limits::time_budget`], with a safety margin). With a depth or
//! node limit and a seed the search is deterministic. The engine always returns one of
//! `game.legal_moves()`: if even depth 1 does not finish, the best move found so far in that
//! iteration, else the first root move in static order (captures of the most valuable victims
//! first).

mod bench;
pub(crate) mod eval;
mod player;
mod quiesce;
mod root;
pub(crate) mod threats;
pub(crate) mod tt;

pub use bench::{bench, BenchRow};
use engine::board::PAD_CELLS;
use engine::generate;
use engine::rules::DoubleRoyalLoss;
use engine::MoveTable;
use engine::{Move, MoveList};
use engine::{MoveEffect, Position};
pub use eval::{EvalConfig, StaticEval};
pub use player::AlphaBeta;
pub use quiesce::{Quiescer, QUIESCE_NODE_LIMIT};
use std::sync::Arc;
use std::time::{Duration, Instant};
use threats::{Facts, Threats};
pub use tt::MAX_TT_MB;
use tt::{Bound, Tt};

/// Score of a won game at the root; a win `n` plies from the root scores `MATE - n`.
pub const MATE: i32 = 100_000;
/// Deepest ply the search (quiescence included) can reach.
pub const MAX_PLY: usize = 96;
/// Scores beyond this are wins or losses by royal capture.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32 - 10;
const INF: i32 = MATE + 1;

/// Default limit when none is given: a fixed time per move.
pub const DEFAULT_MOVETIME: Duration = Duration::from_secs(1);
/// Deepest iteration a depth limit may ask for (deeper ones were always cut to this).
pub const MAX_DEPTH: u32 = MAX_PLY as u32 / 2;
/// Default transposition-table size in MB.
pub const DEFAULT_TT_MB: usize = 64;

// Move-ordering scores.
const ORDER_TT: i32 = 1 << 30;
const ORDER_CAPTURE: i32 = 100_000_000;
const ORDER_KILLER: i32 = 90_000_000;
const ORDER_PROMOTION: i32 = 80_000_000;
const ORDER_HISTORY_MAX: i32 = 50_000_000;
const ORDER_LOSING: i32 = -100_000_000;

/// Search switches (everything but the limits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchConfig {
    /// Transposition-table size in MB (0 = no table).
    pub tt_mb: usize,
    /// Aspiration windows from depth 3 on.
    pub aspiration: bool,
    /// Half-width of the first aspiration window (centipawns).
    pub aspiration_delta: i32,
    /// Extend a node whose side to move can lose its last royal next move.
    pub check_extension: bool,
    /// At the horizon, search a node whose side to move is in check one full ply instead of
    /// the quiescence search (up to twice the iteration depth).
    pub leaf_check: bool,
    /// Maximum plies of quiescence search.
    pub qsearch_plies: u32,
    /// Quiescence plies in which every capture is tried; deeper, only captures whose victims
    /// are worth at least the capturer, and recaptures on the last move's square.
    pub qsearch_all_plies: u32,
    /// Margin of the quiescence delta pruning (centipawns).
    pub delta_margin: i32,
    pub eval: EvalConfig,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            tt_mb: DEFAULT_TT_MB,
            aspiration: false,
            aspiration_delta: 60,
            check_extension: true,
            leaf_check: false,
            qsearch_plies: 6,
            qsearch_all_plies: 2,
            delta_margin: 300,
            eval: EvalConfig::default(),
        }
    }
}

/// What a finished search found.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    pub best: Move,
    /// Score of the last completed iteration (side to move's view; 0 if none completed).
    pub score: i32,
    /// Depth of the last completed iteration (0 if none completed).
    pub depth: u32,
    pub nodes: u64,
    pub time: Duration,
    pub pv: Vec<Move>,
}

#[derive(Clone, Copy)]
struct Ordered {
    score: i32,
    idx: u16,
    quiet: bool,
}

/// The search state; reused from move to move (the TT and history persist within a game).
struct Searcher {
    t: Arc<MoveTable>,
    ev: StaticEval,
    cfg: SearchConfig,
    tt: Tt,
    lists: Vec<MoveList>,
    order: Vec<Vec<Ordered>>,
    killers: [[Option<Move>; 2]; MAX_PLY + 1],
    th: Threats,
    /// History scores by (from, to) padded cells.
    history: Vec<i32>,
    pv: Vec<[Move; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    /// Position hashes: the game's history, then the search path (`path[base + ply]`).
    path: Vec<u64>,
    base: usize,
    /// Per ply: lowest path index a repetition may match (nothing repeats across a capture).
    floor: [usize; MAX_PLY + 2],
    /// Plies below which [`SearchConfig::leaf_check`] applies (twice the iteration depth).
    leaf_check_ply: usize,
    nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    stop: bool,
}

#[inline]
fn to_tt(s: i32, ply: usize) -> i32 {
    if s > MATE_BOUND {
        s + ply as i32
    } else if s < -MATE_BOUND {
        s - ply as i32
    } else {
        s
    }
}

#[inline]
fn from_tt(s: i32, ply: usize) -> i32 {
    if s > MATE_BOUND {
        s - ply as i32
    } else if s < -MATE_BOUND {
        s + ply as i32
    } else {
        s
    }
}

fn is_irreversible(eff: &MoveEffect) -> bool {
    eff.removed_any() || eff.promoted
}

impl Searcher {
    fn new(t: Arc<MoveTable>, cfg: SearchConfig) -> Searcher {
        let ev = StaticEval::new(&t, cfg.eval);
        Searcher {
            th: Threats::new(&t),
            ev,
            t,
            cfg,
            tt: Tt::new(cfg.tt_mb),
            lists: (0..=MAX_PLY).map(|_| MoveList::new()).collect(),
            order: (0..=MAX_PLY).map(|_| Vec::with_capacity(256)).collect(),
            killers: [[None; 2]; MAX_PLY + 1],
            history: vec![0; PAD_CELLS * PAD_CELLS],
            pv: vec![[Move::NULL_PASS; MAX_PLY + 1]; MAX_PLY + 1],
            pv_len: [0; MAX_PLY + 1],
            path: Vec::new(),
            base: 0,
            floor: [0; MAX_PLY + 2],
            leaf_check_ply: 0,
            nodes: 0,
            node_limit: u64::MAX,
            deadline: None,
            stop: false,
        }
    }

    /// Use the rules of `t` (rebuilds the evaluator when they changed).
    fn set_table(&mut self, t: Arc<MoveTable>) {
        if !Arc::ptr_eq(&self.t, &t) {
            if self.t.rules != t.rules {
                self.ev = StaticEval::new(&t, self.cfg.eval);
                self.th = Threats::new(&t);
                self.tt.clear();
            }
            self.t = t;
        }
    }

    fn clear(&mut self) {
        self.tt.clear();
        self.history.iter_mut().for_each(|h| *h = 0);
        self.killers = [[None; 2]; MAX_PLY + 1];
    }

    /// The side to move's score if the game is over by royal loss.
    #[inline]
    fn terminal(&self, pos: &Position, ply: usize) -> Option<i32> {
        let us = pos.side_to_move();
        let mine = pos.royal_count(us);
        let theirs = pos.royal_count(us.other());
        let win = MATE - ply as i32;
        match (mine, theirs) {
            (0, 0) => Some(match self.t.rules.double_royal_loss {
                // The previous mover (the opponent) took both last royals.
                DoubleRoyalLoss::MoverWins => -win,
                DoubleRoyalLoss::MoverLoses => win,
                DoubleRoyalLoss::Draw => 0,
            }),
            (0, _) => Some(-win),
            (_, 0) => Some(win),
            _ => None,
        }
    }

    #[inline]
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes >= self.node_limit {
            self.stop = true;
        } else if self.nodes & 1023 == 0 {
            if let Some(d) = self.deadline {
                if Instant::now() >= d {
                    self.stop = true;
                }
            }
        }
        self.stop
    }

    #[inline]
    fn order_score(&self, m: Move, f: &Facts, tt_move: Option<Move>, ply: usize, attacker: i32) -> i32 {
        if Some(m) == tt_move {
            return ORDER_TT;
        }
        if f.removes && f.gain > 0 {
            if f.mover_burned {
                let net = f.gain - attacker;
                return if net > 0 { ORDER_CAPTURE + net * 8 } else { ORDER_LOSING + net };
            }
            return ORDER_CAPTURE + f.gain * 8 - attacker / 8;
        }
        if f.mover_burned {
            return ORDER_LOSING - attacker;
        }
        if self.killers[ply][0] == Some(m) {
            return ORDER_KILLER;
        }
        if self.killers[ply][1] == Some(m) {
            return ORDER_KILLER - 1;
        }
        if m.promotes() {
            return ORDER_PROMOTION;
        }
        if m.is_null_pass() {
            return 0;
        }
        self.history[m.from_pad() * PAD_CELLS + m.to_pad()].min(ORDER_HISTORY_MAX)
    }

    fn repeated(&self, ply: usize) -> bool {
        let i = self.base + ply;
        let h = self.path[i];
        let mut j = i as isize - 2;
        while j >= self.floor[ply] as isize {
            if self.path[j as usize] == h {
                return true;
            }
            j -= 2;
        }
        false
    }

    /// Record the position reached at `ply` after a move with effect `eff`.
    #[inline]
    fn enter(&mut self, ply: usize, hash: u64, eff: &MoveEffect) {
        let i = self.base + ply;
        self.path.truncate(i);
        self.path.push(hash);
        self.floor[ply] = if is_irreversible(eff) { i } else { self.floor[ply - 1] };
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let row = &mut head[ply];
        row[0] = m;
        let n = if ply < MAX_PLY { self.pv_len[ply + 1].min(MAX_PLY) } else { 0 };
        row[1..=n].copy_from_slice(&tail[0][..n]);
        self.pv_len[ply] = n + 1;
    }

    /// The principal-variation search of one node. Kept as one function on purpose (about 120
    /// lines): it is the engine's hot path, and its steps (terminal and repetition checks, TT
    /// probe, move generation and ordering, the move loop with PVS re-searches, TT store)
    /// share the node's state, which separate functions would pass back and forth at every
    /// node.
    fn search(&mut self, pos: &mut Position, mut depth: i32, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv_len[ply] = 0;
        if let Some(s) = self.terminal(pos, ply) {
            return s;
        }
        if ply > 0 && self.repeated(ply) {
            return 0;
        }
        let mut checked = false;
        if depth <= 0 || ply + self.cfg.qsearch_plies as usize + 2 >= MAX_PLY {
            // At the horizon, a side that could lose its last royal next move gets one more
            // full ply instead of the quiescence search (its stand-pat score would be wrong).
            if !(self.cfg.leaf_check && ply < self.leaf_check_ply && depth <= 0 && self.th.in_check(&self.t, pos)) {
                return self.qsearch(pos, alpha, beta, ply, 0, 0);
            }
            depth = 1;
            checked = true;
        }
        if self.tick() {
            return 0;
        }
        let pv_node = beta - alpha > 1;
        let key = pos.hash();
        let mut tt_move = None;
        if let Some(e) = self.tt.probe(key) {
            tt_move = e.mv;
            if !pv_node && e.depth as i32 >= depth {
                let s = from_tt(e.score, ply);
                match e.bound {
                    Bound::Exact => return s,
                    Bound::Lower if s >= beta => return s,
                    Bound::Upper if s <= alpha => return s,
                    _ => {}
                }
            }
        }
        let us = pos.side_to_move();
        let enemy = threats::watch(&self.t, pos, us.other());
        generate(pos, &self.t, &mut self.lists[ply]);
        let n = self.lists[ply].len();
        if n == 0 {
            return -(MATE - ply as i32); // no legal move loses (§9)
        }
        let mut order = std::mem::take(&mut self.order[ply]);
        order.clear();
        let their_royals = pos.royal_count(us.other());
        for i in 0..n {
            let m = self.lists[ply].as_slice()[i];
            let f = threats::facts(&self.t, &self.ev, pos, m, &enemy);
            if f.royal_hit && their_royals == 1 {
                let mut child = *pos;
                child.play(&self.t, m);
                if let Some(s) = self.terminal(&child, ply + 1) {
                    if -s > 0 {
                        self.order[ply] = order;
                        self.pv[ply][0] = m;
                        self.pv_len[ply] = 1;
                        return -s;
                    }
                }
            }
            let attacker = if m.is_null_pass() { 0 } else { self.ev.value_of_code(pos.cell(m.from_pad())) };
            let score = self.order_score(m, &f, tt_move, ply, attacker);
            order.push(Ordered { score, idx: i as u16, quiet: !f.removes });
        }
        order.sort_unstable_by(|a, b| b.score.cmp(&a.score).then(a.idx.cmp(&b.idx)));
        if self.cfg.check_extension && !checked && self.th.in_check(&self.t, pos) {
            depth += 1;
        }
        let old_alpha = alpha;
        let mut best = -INF;
        let mut best_move = None;
        for k in 0..n {
            let o = order[k];
            let m = self.lists[ply].as_slice()[o.idx as usize];
            let eff = pos.play(&self.t, m);
            self.enter(ply + 1, pos.hash(), &eff);
            let score = if k == 0 {
                -self.search(pos, depth - 1, -beta, -alpha, ply + 1)
            } else {
                let mut s = -self.search(pos, depth - 1, -alpha - 1, -alpha, ply + 1);
                if s > alpha && s < beta && !self.stop {
                    s = -self.search(pos, depth - 1, -beta, -alpha, ply + 1);
                }
                s
            };
            pos.unplay(m, &eff);
            if self.stop {
                self.order[ply] = order;
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(m);
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, m);
                    if score >= beta {
                        if o.quiet && !m.is_null_pass() {
                            if self.killers[ply][0] != Some(m) {
                                self.killers[ply][1] = self.killers[ply][0];
                                self.killers[ply][0] = Some(m);
                            }
                            let h = &mut self.history[m.from_pad() * PAD_CELLS + m.to_pad()];
                            *h = (*h + depth * depth).min(ORDER_HISTORY_MAX);
                        }
                        break;
                    }
                }
            }
        }
        self.order[ply] = order;
        let bound = if best >= beta {
            Bound::Lower
        } else if best > old_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(key, best_move, to_tt(best, ply), depth, bound);
        best
    }

    fn qsearch(&mut self, pos: &mut Position, mut alpha: i32, beta: i32, ply: usize, qply: u32, last_to: usize) -> i32 {
        self.pv_len[ply] = 0;
        if let Some(s) = self.terminal(pos, ply) {
            return s;
        }
        if self.tick() {
            return 0;
        }
        let stand = self.ev.evaluate(pos);
        if stand >= beta {
            return stand;
        }
        if qply >= self.cfg.qsearch_plies || ply + 1 >= MAX_PLY {
            return stand;
        }
        if stand > alpha {
            alpha = stand;
        }
        let us = pos.side_to_move();
        let enemy = threats::watch(&self.t, pos, us.other());
        generate(pos, &self.t, &mut self.lists[ply]);
        let n = self.lists[ply].len();
        if n == 0 {
            return -(MATE - ply as i32);
        }
        let their_royals = pos.royal_count(us.other());
        let mut order = std::mem::take(&mut self.order[ply]);
        order.clear();
        let mut pruned_bound = -INF;
        for i in 0..n {
            let m = self.lists[ply].as_slice()[i];
            let f = threats::facts(&self.t, &self.ev, pos, m, &enemy);
            if !f.removes {
                continue;
            }
            if f.royal_hit && their_royals == 1 {
                let mut child = *pos;
                child.play(&self.t, m);
                if let Some(s) = self.terminal(&child, ply + 1) {
                    if -s > 0 {
                        self.order[ply] = order;
                        self.pv[ply][0] = m;
                        self.pv_len[ply] = 1;
                        return -s;
                    }
                }
            }
            let attacker = self.ev.value_of_code(pos.cell(m.from_pad()));
            if f.mover_burned && f.gain <= attacker {
                continue; // certain material loss
            }
            if qply >= self.cfg.qsearch_all_plies && f.gain < attacker && m.to_pad() != last_to {
                continue; // deep in the quiescence search: no captures that may lose material
            }
            let optimistic = stand + f.gain + self.cfg.delta_margin;
            if optimistic <= alpha {
                // Delta pruning: cannot raise alpha. Fail-soft with the optimistic bound, so
                // that the bound returned does not depend on the window.
                pruned_bound = pruned_bound.max(optimistic);
                continue;
            }
            let score = if f.mover_burned { f.gain - attacker } else { f.gain * 8 - attacker / 8 };
            order.push(Ordered { score, idx: i as u16, quiet: false });
        }
        order.sort_unstable_by(|a, b| b.score.cmp(&a.score).then(a.idx.cmp(&b.idx)));
        let mut best = stand.max(pruned_bound);
        for k in 0..order.len() {
            let m = self.lists[ply].as_slice()[order[k].idx as usize];
            let eff = pos.play(&self.t, m);
            if !eff.is_capture() && !eff.burned().any(|(_, p)| p.color() != us) {
                pos.unplay(m, &eff);
                continue;
            }
            let score = -self.qsearch(pos, -beta, -alpha, ply + 1, qply + 1, m.to_pad());
            pos.unplay(m, &eff);
            if self.stop {
                self.order[ply] = order;
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, m);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        self.order[ply] = order;
        best
    }
}
