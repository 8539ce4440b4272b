//! The alpha-beta baseline engine (`alphabeta` engine spec).
//!
//! Iterative-deepening principal-variation search with
//! * a transposition table ([`crate::tt`], size in MB, `tt=0` turns it off);
//! * quiescence search over every move that removes an enemy piece: captures of the mover's
//!   legs and burns (a Fire Demon's move or a promotion to Fire Demon that burns something is a
//!   capture even when its own square was empty), with delta pruning;
//! * move ordering: TT move, MVV-LVA captures (victims include burned pieces), killers, history;
//! * a check extension: a node whose side to move could lose its last royal on the opponent's
//!   next move is searched one ply deeper (BENCHMARKS.md has the measurement that kept it);
//! * aspiration windows around the previous iteration's score (also measured there).
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

use crate::eval::{EvalConfig, Evaluator, ROYAL_ORDER_VALUE};
use crate::game::Game;
use crate::movegen::generate;
use crate::moves::{Move, MoveList};
use crate::player::{EngineSpec, Limits, Player, SpecError, Thinking};
use crate::position::{MoveEffect, Position};
use crate::powers::MoveTable;
use crate::rules::DoubleRoyalLoss;
use crate::square::{dir, Color, Square, PAD_CELLS, PAD_W};
use crate::tt::{Bound, Tt};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Score of a won game at the root; a win `n` plies from the root scores `MATE - n`.
pub const MATE: i32 = 100_000;
/// Deepest ply the search (quiescence included) can reach.
pub const MAX_PLY: usize = 96;
/// Scores beyond this are wins or losses by royal capture.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32 - 10;
const INF: i32 = MATE + 1;

/// Default limit when none is given: a fixed time per move.
pub const DEFAULT_MOVETIME: Duration = Duration::from_secs(1);
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
            aspiration: true,
            aspiration_delta: 60,
            check_extension: true,
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

/// Static facts about a move, read off the board without playing it.
#[derive(Clone, Copy, Default)]
struct Facts {
    /// Value of the enemy pieces it captures or burns (a royal counts [`ROYAL_ORDER_VALUE`]).
    gain: i32,
    /// It may remove an enemy piece (capture or burn): a quiescence move.
    removes: bool,
    /// It captures or burns an enemy royal.
    royal_hit: bool,
    /// The mover ends next to a surviving enemy Fire Demon and burns.
    mover_burned: bool,
}

/// Enemy Fire Demons and royals of one side (padded cells).
#[derive(Clone, Copy, Default)]
struct Watch {
    fds: [usize; 8],
    n_fds: usize,
    royals: [usize; 4],
    n_royals: usize,
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
    ev: Evaluator,
    cfg: SearchConfig,
    tt: Tt,
    lists: Vec<MoveList>,
    order: Vec<Vec<Ordered>>,
    scratch: MoveList,
    killers: [[Option<Move>; 2]; MAX_PLY + 1],
    /// [`near_reach`] per cell code.
    near_reach: [u8; 256],
    /// [`is_burner`] per cell code.
    burner: [bool; 256],
    /// History scores by (from, to) padded cells.
    history: Vec<i32>,
    pv: Vec<[Move; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    /// Position hashes: the game's history, then the search path (`path[base + ply]`).
    path: Vec<u64>,
    base: usize,
    /// Per ply: lowest path index a repetition may match (nothing repeats across a capture).
    floor: [usize; MAX_PLY + 2],
    nodes: u64,
    node_limit: u64,
    deadline: Option<Instant>,
    stop: bool,
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
    if c.jump2 != 0 || c.knight || c.lion || c.linear_lion != 0 || c.bent_lion_first != 0 || c.ferz_twice || c.ride_skip != 0 {
        r = r.max(2);
    }
    if c.area != crate::powers::AreaKind::None {
        r = r.max(c.area_k);
    }
    r
}

/// Whether the piece `c` on `from` could move to `target` along one of its lines: a range
/// jump in that direction, or a ride long enough over an empty path.
#[inline]
fn ray_reaches(pos: &Position, c: &crate::powers::Compiled, from: usize, target: usize) -> bool {
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

#[inline]
fn adjacent(a: usize, b: usize) -> bool {
    let d = a as i32 - b as i32;
    a != b && matches!(d.abs(), 1 | 19 | 20 | 21)
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
        let ev = Evaluator::new(&t, cfg.eval);
        Searcher {
            near_reach: std::array::from_fn(|code| near_reach(&t, code as u8)),
            burner: std::array::from_fn(|code| is_burner(&t, code as u8)),
            ev,
            t,
            cfg,
            tt: Tt::new(cfg.tt_mb),
            lists: (0..=MAX_PLY).map(|_| MoveList::new()).collect(),
            order: (0..=MAX_PLY).map(|_| Vec::with_capacity(256)).collect(),
            scratch: MoveList::new(),
            killers: [[None; 2]; MAX_PLY + 1],
            history: vec![0; PAD_CELLS * PAD_CELLS],
            pv: vec![[Move::NULL_PASS; MAX_PLY + 1]; MAX_PLY + 1],
            pv_len: [0; MAX_PLY + 1],
            path: Vec::new(),
            base: 0,
            floor: [0; MAX_PLY + 2],
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
                self.ev = Evaluator::new(&t, self.cfg.eval);
                self.near_reach = std::array::from_fn(|code| near_reach(&t, code as u8));
                self.burner = std::array::from_fn(|code| is_burner(&t, code as u8));
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

    fn watch(&self, pos: &Position, c: Color) -> Watch {
        let mut w = Watch::default();
        for (wi, word) in pos.dense_occ(c).iter().enumerate() {
            let mut bits = *word;
            while bits != 0 {
                let pad = Square::from_index(wi * 64 + bits.trailing_zeros() as usize).pad();
                bits &= bits - 1;
                let p = self.t.get(pos.cell(pad));
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
    fn add_victim(&self, f: &mut Facts, code: u8) {
        if self.t.get(code).royal {
            f.royal_hit = true;
            f.gain += ROYAL_ORDER_VALUE;
        } else {
            f.gain += self.ev.value_of_code(code);
        }
    }

    /// Facts of `m` for the side to move; `enemy` holds the opponent's Fire Demons.
    fn facts(&self, pos: &Position, m: Move, enemy: &Watch) -> Facts {
        let mut f = Facts::default();
        if m.is_null_pass() {
            return f;
        }
        let t = &*self.t;
        let from = m.from_pad();
        let to = m.to_pad();
        let code = pos.cell(from);
        let mut caps = [0usize; 3];
        let mut nc = 0;
        for v in m.via_pad() {
            let v = v as usize;
            if v != 0 && pos.cell(v) != 0 {
                self.add_victim(&mut f, pos.cell(v));
                caps[nc] = v;
                nc += 1;
            }
        }
        if to != from && pos.cell(to) != 0 {
            self.add_victim(&mut f, pos.cell(to));
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
                        self.add_victim(&mut f, sc);
                    }
                }
            }
        }
        f.removes |= nc > 0;
        f
    }

    /// Whether the side to move could lose its last royal on the opponent's next move.
    ///
    /// Only enemy pieces that could reach the royal are generated: those whose step, jump,
    /// lion or area moves reach its distance, those on a line through it with a range jump or
    /// a long enough ride over an empty path, and burners (Fire Demons, Water Buffaloes that
    /// may promote) that could reach a square next to it.
    fn in_check(&mut self, pos: &Position) -> bool {
        let us = pos.side_to_move();
        if pos.royal_count(us) != 1 {
            return false;
        }
        let mine = self.watch(pos, us);
        if mine.n_royals != 1 {
            return false;
        }
        let r = mine.royals[0];
        let t = self.t.clone();
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
                let dist = ((r % PAD_W as usize) as i32 - (pad % PAD_W as usize) as i32)
                    .abs()
                    .max((r as i32 / PAD_W - pad as i32 / PAD_W).abs());
                let burner = self.burner[code as usize];
                let reach = self.near_reach[code as usize] as i32 + burner as i32;
                let candidate = dist <= reach
                    || ray_reaches(pos, c, pad, r)
                    || (burner && dir::OFFSET.iter().any(|&o| {
                        let a = (r as i32 + o) as usize;
                        pos.cell(a) != crate::piece::GUARD && ray_reaches(pos, c, pad, a)
                    }));
                if !candidate {
                    continue;
                }
                crate::movegen::generate_piece(pos, &t, sq, &mut self.scratch);
                for &m in self.scratch.iter() {
                    let to = m.to_pad();
                    let mut hit = to == r || m.via_pad().iter().any(|&v| v as usize == r);
                    if !hit && burner && adjacent(to, r) {
                        let final_code = if m.promotes() { c.promote_to } else { code };
                        hit = t.get(final_code).burns;
                    }
                    if hit {
                        let mut q = p;
                        q.play(&t, m);
                        if q.royal_count(us) == 0 {
                            return true;
                        }
                    }
                }
            }
        }
        false
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

    fn search(&mut self, pos: &mut Position, mut depth: i32, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv_len[ply] = 0;
        if let Some(s) = self.terminal(pos, ply) {
            return s;
        }
        if ply > 0 && self.repeated(ply) {
            return 0;
        }
        if depth <= 0 || ply + self.cfg.qsearch_plies as usize + 2 >= MAX_PLY {
            return self.qsearch(pos, alpha, beta, ply, 0, 0);
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
        let enemy = self.watch(pos, us.other());
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
            let f = self.facts(pos, m, &enemy);
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
        if self.cfg.check_extension && self.in_check(pos) {
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
        let enemy = self.watch(pos, us.other());
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
            let f = self.facts(pos, m, &enemy);
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

    /// Search the root moves (in their current order) to `depth` in the window. Returns the
    /// best score, with `best` updated to each root move that raised alpha in a completed
    /// search; `None` if the search was stopped.
    fn search_root(
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
        let check_ext = self.cfg.check_extension && self.in_check(pos);
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
    fn think(&mut self, game: &Game, limits: &Limits, seed: u64, info: &mut dyn FnMut(&Thinking)) -> SearchResult {
        let start = Instant::now();
        let t = self.t.clone();
        let mut pos = *game.position();
        let mut moves = game.legal_moves();
        let empty = SearchResult { best: Move::NULL_PASS, score: 0, depth: 0, nodes: 0, time: Duration::ZERO, pv: vec![] };
        if moves.is_empty() {
            return empty; // not reached through `Player::choose` (the game is not over)
        }
        // Limits.
        self.nodes = 0;
        self.stop = false;
        self.node_limit = limits.nodes.unwrap_or(u64::MAX).max(1);
        let nothing_set = limits.depth.is_none() && limits.nodes.is_none() && limits.time_budget().is_none();
        let budget = if nothing_set { Limits { movetime: Some(DEFAULT_MOVETIME), ..*limits }.time_budget() } else { limits.time_budget() };
        self.deadline = budget.map(|b| start + b);
        let max_depth = limits.depth.unwrap_or(MAX_PLY as u32 / 2).clamp(1, MAX_PLY as u32 / 2) as i32;

        // Path for repetition: the game's positions since the last irreversible move.
        self.path.clear();
        let plies = game.plies();
        for p in plies {
            self.path.push(p.before.hash());
        }
        self.path.push(pos.hash());
        self.base = plies.len();
        self.floor[0] = plies.iter().rposition(|p| is_irreversible(&p.effect)).map_or(0, |i| i + 1);
        self.tt.new_search();
        for h in self.history.iter_mut() {
            *h /= 4;
        }

        // A move that takes the opponent's last royal wins at once.
        for &m in &moves {
            let mut child = pos;
            child.play(&t, m);
            if let Some(s) = self.terminal(&child, 1) {
                if -s > 0 {
                    let r = SearchResult { best: m, score: -s, depth: 1, nodes: 1, time: start.elapsed(), pv: vec![m] };
                    info(&Thinking { depth: 1, score_cp: r.score, wdl: None, nodes: 1, time: r.time, pv: r.pv.clone() });
                    return r;
                }
            }
        }
        // Static order: seeded shuffle (ties differ by seed), then by ordering score.
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ pos.hash());
        moves.shuffle(&mut rng);
        let us = pos.side_to_move();
        let enemy = self.watch(&pos, us.other());
        let tt_move = self.tt.probe(pos.hash()).and_then(|e| e.mv);
        let mut keyed: Vec<(i32, Move)> = moves
            .iter()
            .map(|&m| {
                let f = self.facts(&pos, m, &enemy);
                let attacker = if m.is_null_pass() { 0 } else { self.ev.value_of_code(pos.cell(m.from_pad())) };
                (self.order_score(m, &f, tt_move, 0, attacker), m)
            })
            .collect();
        keyed.sort_by(|a, b| b.0.cmp(&a.0));
        let mut moves: Vec<Move> = keyed.into_iter().map(|x| x.1).collect();

        let mut result = SearchResult { best: moves[0], score: 0, depth: 0, nodes: 0, time: Duration::ZERO, pv: vec![moves[0]] };
        if moves.len() == 1 {
            result.time = start.elapsed();
            return result;
        }
        let mut prev_score: i32 = 0;
        'deepen: for depth in 1..=max_depth {
            let mut delta = self.cfg.aspiration_delta.max(1);
            let (mut alpha, mut beta) = if self.cfg.aspiration && depth >= 3 && prev_score.abs() < MATE_BOUND {
                (prev_score - delta, prev_score + delta)
            } else {
                (-INF, INF)
            };
            let score = loop {
                let mut best = None;
                let r = self.search_root(&mut pos, &moves, depth, alpha, beta, &mut best);
                if let Some((k, _)) = best {
                    // A root move that raised alpha in a completed search: make it the first.
                    let m = moves.remove(k);
                    moves.insert(0, m);
                    result.best = m;
                    result.pv = self.pv[0][..self.pv_len[0]].to_vec();
                }
                let Some(score) = r else { break 'deepen };
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
                break score;
            };
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
}

/// The alpha-beta player.
pub struct AlphaBeta {
    name: String,
    limits: Limits,
    seed: u64,
    searcher: Searcher,
}

impl AlphaBeta {
    /// An engine with the given limits, switches and seed (rules are taken from each game).
    pub fn new(limits: Limits, cfg: SearchConfig, seed: u64) -> AlphaBeta {
        let t = Arc::new(MoveTable::new(&crate::rules::Rules::standard()));
        AlphaBeta { name: "alphabeta".into(), limits, seed, searcher: Searcher::new(t, cfg) }
    }

    /// Build from an engine spec: `alphabeta[:depth=N,nodes=N,time=DUR,tt=MB,seed=N]`.
    pub fn from_spec(spec: &EngineSpec) -> Result<AlphaBeta, SpecError> {
        spec.check_keys(&["depth", "nodes", "time", "tt", "seed"])?;
        let depth: Option<u32> = spec.number("depth")?;
        if depth == Some(0) {
            return Err(spec.error("depth must be at least 1"));
        }
        let limits = Limits { depth, nodes: spec.number("nodes")?, movetime: spec.duration("time")?, clock: None };
        let cfg = SearchConfig { tt_mb: spec.number("tt")?.unwrap_or(DEFAULT_TT_MB), ..SearchConfig::default() };
        let mut ab = AlphaBeta::new(limits, cfg, spec.number("seed")?.unwrap_or(0));
        ab.name = spec.to_string();
        Ok(ab)
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    pub fn config(&self) -> SearchConfig {
        self.searcher.cfg
    }

    /// Search the game's current position with this engine's limits.
    pub fn search(&mut self, game: &Game, info: &mut dyn FnMut(&Thinking)) -> SearchResult {
        self.searcher.set_table(game.table_arc());
        let limits = self.limits;
        self.searcher.think(game, &limits, self.seed, info)
    }

    /// Static evaluation of a position for its side to move (centipawns).
    pub fn evaluate(&mut self, game: &Game) -> i32 {
        self.searcher.set_table(game.table_arc());
        self.searcher.ev.evaluate(game.position())
    }
}

impl Player for AlphaBeta {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn choose(&mut self, game: &Game, info: &mut dyn FnMut(&Thinking)) -> Move {
        let r = self.search(game, info);
        if r.best == Move::NULL_PASS && !game.legal_moves().contains(&Move::NULL_PASS) {
            // Only reachable on a finished game, which the trait excludes.
            return game.legal_moves().first().copied().unwrap_or(Move::NULL_PASS);
        }
        r.best
    }
    fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }
    fn new_game(&mut self) {
        self.searcher.clear();
    }
}

/// One row of the speed benchmark.
#[derive(Clone, Debug)]
pub struct BenchRow {
    pub name: String,
    pub depth: u32,
    pub nodes: u64,
    pub secs: f64,
    pub score: i32,
    pub best: Move,
}

impl BenchRow {
    pub fn nodes_per_sec(&self) -> f64 {
        self.nodes as f64 / self.secs.max(1e-9)
    }
}

/// Search each benchmark position (`crate::bench::BENCH_POSITIONS`) with `limits` and a fresh
/// engine of configuration `cfg`; nodes include quiescence nodes.
pub fn bench(limits: Limits, cfg: SearchConfig) -> Vec<BenchRow> {
    let t = Arc::new(MoveTable::new(&crate::rules::Rules::standard()));
    crate::bench::BENCH_POSITIONS
        .iter()
        .map(|&(name, fen)| {
            let pos = Position::from_fen(fen).expect("bench FEN parses");
            let game = Game::new(t.clone(), pos);
            let mut ab = AlphaBeta::new(limits, cfg, 0);
            let r = ab.search(&game, &mut |_| {});
            BenchRow { name: name.into(), depth: r.depth, nodes: r.nodes, secs: r.time.as_secs_f64(), score: r.score, best: r.best }
        })
        .collect()
}

#[allow(dead_code)]
const _: () = assert!(PAD_W == 20);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    /// Reference: generate every opponent move and play each one.
    fn in_check_slow(t: &MoveTable, pos: &Position) -> bool {
        let us = pos.side_to_move();
        if pos.royal_count(us) != 1 {
            return false;
        }
        let mut p = *pos;
        p.set_side_to_move(us.other());
        crate::movegen::legal_moves(&p, t).into_iter().any(|m| {
            let mut q = p;
            q.play(t, m);
            q.royal_count(us) == 0
        })
    }

    #[test]
    fn in_check_matches_full_generation_on_random_games() {
        for rules in [Rules::standard(), Rules::house(), Rules::hachu()] {
            let t = Arc::new(MoveTable::new(&rules));
            let mut s = Searcher::new(t.clone(), SearchConfig { tt_mb: 0, ..SearchConfig::default() });
            let mut checks = 0;
            for seed in 0..6u64 {
                let mut rng = ChaCha8Rng::seed_from_u64(seed);
                let mut pos = Position::start();
                for _ in 0..400 {
                    if pos.is_finished() {
                        break;
                    }
                    let slow = in_check_slow(&t, &pos);
                    checks += slow as u32;
                    assert_eq!(s.in_check(&pos), slow, "{}", pos.to_fen());
                    let moves = crate::movegen::legal_moves(&pos, &t);
                    let Some(&m) = moves.choose(&mut rng) else { break };
                    pos.play(&t, m);
                }
            }
            assert!(checks > 0);
        }
    }
}
