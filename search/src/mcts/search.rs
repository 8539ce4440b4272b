//! One search tree: descents (selection in `puct.rs`), expansion with terminal detection,
//! backup, root noise, tree reuse, and the search result.
//!
//! A [`Search`] is stepped by the driver (`driver.rs`): [`Search::gather`] descends the tree
//! up to `batch_per_tree` times, queueing new leaves (virtual loss keeps the descents apart)
//! and backing up terminal hits at once; the driver evaluates every queued leaf of every tree
//! in one call; [`Search::apply`] writes the priors and backs the values up.
//!
//! # Positions
//! No position is stored in the tree: each descent replays the moves from the root position
//! (copy-make, ~65 ns a move); queued leaves keep their position until evaluated.
//!
//!
//! Terminal nodes are recognised in `terminal.rs`.

use super::gumbel::{dirichlet, GumbelState};
use super::puct::{select_inner, set_priors, sort_tail, RootSel, SORTED_PREFIX};
use super::terminal::{allows_mate_in_one, classify, screen_royal_losses, winning_move, Class};
use super::tree::{Edge, IdHash, NodeState, Tree, NONE};
use super::{value_to_cp, EvalRequest, Evaluation, MctsConfig, RootMove, SearchResult};
use crate::alphabeta::threats::Threats;
use crate::values::material_value;
use crate::Thinking;
use engine::Game;
use engine::MoveTable;
use engine::Position;
use engine::{Kind, Move, MoveList};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// Most simulations a [`Search::gather`] runs that end on terminal nodes with nothing queued
/// before it returns ([`Search::yielded`]), so a driver consults its stop condition (a deadline)
/// at least this often even in a solved tree.
pub const TERMINAL_SIMS_PER_GATHER: u32 = 4096;

/// A queued leaf awaiting its evaluation.
struct Leaf {
    node: u32,
    path_start: u32,
    path_len: u32,
    moves_start: u32,
    pos: Position,
    reps: u32,
    ply: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// The root still needs its own evaluation.
    RootEval,
    Running,
    Done,
}

enum Sim {
    Leaf,
    Terminal,
    Collision,
    Full,
}

/// One search tree over one game position.
pub struct Search {
    pub(crate) cfg: MctsConfig,
    pub(crate) tree: Tree,
    game: Game,
    table: Arc<MoveTable>,
    /// Occurrences of each position hash in the root game (root included).
    history: HashMap<u64, u32, IdHash>,
    root_ply: u32,
    root_quiet: u32,
    rng: ChaCha8Rng,
    /// PUCT selection at the root (noised priors, creation order).
    root: RootSel,
    pub(crate) gumbel: Option<GumbelState>,
    phase: Phase,
    /// A root move that takes the opponent's last royal.
    win_edge: Option<usize>,
    /// PUCT: total root visits wanted (reused ones count); Gumbel: new simulations.
    target: u32,
    pending: Vec<Leaf>,
    paths: Vec<u32>,
    sims: u32,
    full: bool,
    /// The last gather stopped at [`TERMINAL_SIMS_PER_GATHER`] with nothing queued.
    yielded: bool,
    collisions: u64,
    reused: bool,
    list: MoveList,
    path: Vec<u32>,
    path_hashes: Vec<u64>,
    path_moves: Vec<Move>,
    /// Moves of the queued leaves (what their requests hand out).
    leaf_moves: Vec<Move>,
    /// Royal guard (`cfg.royal_guard`): the check test, and per entry of `leaf_moves` whether
    /// that move loses the mover's last royal at once (empty when the guard is off).
    threats: Option<Threats>,
    leaf_unsafe: Vec<bool>,
    /// Mate guard: per root edge (in edge order) whether `guard_root_mates` took it out, when
    /// it took any out (read by the root noise).
    root_mates: Option<Vec<bool>>,
    unsafe_scratch: Vec<bool>,
    prior_scratch: Vec<f32>,
    sort_keys: Vec<u32>,
    sort_edges: Vec<Edge>,
}

impl Search {
    /// A fresh search of the current position of `game` (which must not be over).
    pub fn new(cfg: MctsConfig, game: &Game) -> Search {
        let reserve = ((cfg.visits as usize).saturating_mul(2) + 16).min(1 << 16);
        let mut s = Search {
            tree: Tree::new(cfg.node_budget, cfg.edge_budget, reserve),
            game: game.clone(),
            table: game.table_arc(),
            history: HashMap::default(),
            root_ply: 0,
            root_quiet: 0,
            rng: ChaCha8Rng::seed_from_u64(cfg.seed),
            root: RootSel::default(),
            gumbel: None,
            phase: Phase::Done,
            win_edge: None,
            target: cfg.visits,
            pending: Vec::new(),
            paths: Vec::new(),
            sims: 0,
            full: false,
            yielded: false,
            collisions: 0,
            reused: false,
            list: MoveList::new(),
            path: Vec::new(),
            path_hashes: Vec::new(),
            path_moves: Vec::new(),
            leaf_moves: Vec::new(),
            threats: None,
            leaf_unsafe: Vec::new(),
            root_mates: None,
            unsafe_scratch: Vec::new(),
            prior_scratch: Vec::new(),
            sort_keys: Vec::new(),
            sort_edges: Vec::new(),
            cfg,
        };
        s.reset(game);
        s
    }

    pub fn config(&self) -> &MctsConfig {
        &self.cfg
    }
    /// The visit budget: PUCT, total root visits (reused visits count); Gumbel, new
    /// simulations. Takes effect for the search in progress.
    pub fn set_visits(&mut self, visits: u32) {
        self.target = visits;
        self.cfg.visits = visits;
    }
    /// Turn the root's mate guard on or off for the next search (`MctsConfig::mate_guard`;
    /// it needs the royal guard, which stays as configured).
    pub fn set_mate_guard(&mut self, on: bool) {
        self.cfg.mate_guard = on && self.cfg.royal_guard;
    }
    pub fn tree(&self) -> &Tree {
        &self.tree
    }
    /// The game at the root.
    pub fn game(&self) -> &Game {
        &self.game
    }
    /// Simulations completed since the search (re)started.
    pub fn simulations(&self) -> u32 {
        self.sims
    }
    /// Completed visits below the root (reused ones included).
    pub fn root_visits(&self) -> u32 {
        self.tree.node(0).visits.saturating_sub(1)
    }
    /// Whether the last [`Search::set_game`] kept part of the old tree.
    pub fn reused(&self) -> bool {
        self.reused
    }
    /// Descents abandoned because they reached a leaf already waiting for its evaluation.
    pub fn collisions(&self) -> u64 {
        self.collisions
    }
    /// The search ran out of node or edge budget.
    pub fn out_of_memory(&self) -> bool {
        self.full
    }
    pub fn is_done(&self) -> bool {
        self.phase == Phase::Done
    }
    /// Whether the last [`Search::gather`] gave up its turn after [`TERMINAL_SIMS_PER_GATHER`]
    /// simulations that all ended on terminal nodes, queuing nothing: the driver must call it
    /// again (after consulting its stop condition) rather than take the empty queue for the end.
    pub fn yielded(&self) -> bool {
        self.yielded
    }
    /// Leaves queued for evaluation.
    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }

    /// Restart from scratch on the current position of `game` (no reuse; the arena's memory is
    /// kept, so a new game allocates nothing).
    pub fn restart(&mut self, game: &Game) {
        self.reset(game);
        self.reused = false;
    }

    /// Restart on the current position of `game`, keeping the subtree of the moves played
    /// since the old root when the game continues the old root's game (tree reuse). The rest of
    /// the tree is freed (compacted away). Returns whether the tree was reused.
    pub fn set_game(&mut self, game: &Game) -> bool {
        let reused = self.try_reuse(game);
        if !reused {
            self.reset(game);
        }
        self.reused = reused;
        reused
    }

    fn try_reuse(&mut self, game: &Game) -> bool {
        if game.is_over() || self.tree.node_count() == 0 || self.phase == Phase::RootEval {
            return false;
        }
        let old = self.root_ply as usize;
        if game.ply_count() < old || self.table.rules != game.table().rules {
            return false;
        }
        // The old root game must be a prefix of the new one.
        let hash_at = |g: &Game, i: usize| {
            if i == g.ply_count() {
                g.position().hash()
            } else {
                g.plies()[i].before.hash()
            }
        };
        if (0..=old).any(|i| hash_at(game, i) != hash_at(&self.game, i)) {
            return false;
        }
        let mut node = 0u32;
        for p in &game.plies()[old..] {
            let Some(e) = self.tree.edges(node).find(|&e| self.tree.edge_move(e) == p.mv) else { return false };
            let c = self.tree.child(e);
            if c == NONE || self.tree.node(c).state != NodeState::Expanded {
                return false;
            }
            node = c;
        }
        // The tree's moves must be exactly the legal ones (repetition may remove some).
        let legal = game.legal_moves();
        let mut have: Vec<Move> = self.tree.node_moves(node).collect();
        let mut want = legal.clone();
        have.sort_unstable();
        want.sort_unstable();
        if have != want {
            return false;
        }
        self.tree.compact(node);
        self.set_root_game(game);
        self.begin(Phase::Running);
        true
    }

    fn reset(&mut self, game: &Game) {
        assert!(!game.is_over(), "search on a finished game");
        self.tree.clear();
        self.set_root_game(game);
        let moves = game.legal_moves();
        self.tree.add_node(NodeState::Pending, 0, &moves);
        self.begin(Phase::RootEval);
    }

    fn set_root_game(&mut self, game: &Game) {
        let same_rules = Arc::ptr_eq(&self.table, &game.table_arc());
        self.game = game.clone();
        self.table = game.table_arc();
        if self.cfg.royal_guard && !(same_rules && self.threats.is_some()) {
            // Built once per rules, not at every move's tree reuse.
            self.threats = Some(Threats::new(&self.table));
        }
        self.history.clear();
        for p in game.plies() {
            *self.history.entry(p.before.hash()).or_insert(0) += 1;
        }
        *self.history.entry(game.position().hash()).or_insert(0) += 1;
        self.root_ply = game.ply_count() as u32;
        self.root_quiet = game.plies().iter().rev().take_while(|p| !p.effect.removed_any()).count() as u32;
    }

    fn begin(&mut self, phase: Phase) {
        self.pending.clear();
        self.paths.clear();
        self.leaf_moves.clear();
        self.leaf_unsafe.clear();
        self.sims = 0;
        self.full = false;
        self.gumbel = None;
        self.target = self.cfg.visits;
        let moves: Vec<Move> = self.tree.node_moves(0).collect();
        self.win_edge = winning_move(self.game.position(), &self.table, &moves).map(|i| i + self.tree.edges(0).start);
        self.phase = if self.win_edge.is_some() { Phase::Done } else { phase };
        if self.phase == Phase::Running {
            self.init_root();
        }
    }

    /// Root priors, noise, Gumbel sampling: once the root has its evaluation.
    fn init_root(&mut self) {
        self.root_mates = None;
        if self.cfg.mate_guard {
            self.guard_root_mates();
        }
        let r = self.tree.edges(0);
        let mut priors: Vec<f32> = r.clone().map(|e| self.tree.prior(e)).collect();
        if let Some(m) = self.cfg.gumbel {
            self.gumbel = Some(GumbelState::new(&self.tree, m, self.target, self.cfg.noise, &mut self.rng));
        } else if self.cfg.noise && r.len() > 1 {
            let alpha = (self.cfg.dirichlet_alpha as f64 / r.len() as f64).max(1e-3);
            let eta = dirichlet(&mut self.rng, alpha, r.len());
            let f = self.cfg.dirichlet_fraction;
            for (p, n) in priors.iter_mut().zip(eta) {
                *p = (1.0 - f) * *p + f * n as f32;
            }
            if let Some(th) = self.threats.as_mut() {
                // The noise must not bring back the moves the guards took out.
                let moves: Vec<Move> = self.tree.node_moves(0).collect();
                let mut lost = Vec::new();
                if let Some(flags) = self.root_mates.take() {
                    lost = flags;
                } else if screen_royal_losses(&self.table, self.game.position(), &moves, th, &mut lost) {
                    lost.iter_mut().for_each(|l| *l = false);
                }
                priors.iter_mut().zip(&lost).filter(|(_, &l)| l).for_each(|(p, _)| *p = 0.0);
            }
        }
        self.root.init(&self.tree, priors);
    }

    /// Mate guard at the root: moves that let the last royal be taken at once or let the
    /// opponent mate in one get prior 0, unless every move is one of those (then only the
    /// first kind is left out, as the royal guard does everywhere). With a budget
    /// (`mate_guard_moves`) the moves are screened for mates in decreasing prior order until
    /// that many pass; the rest keep their priors.
    fn guard_root_mates(&mut self) {
        let Some(th) = self.threats.as_mut() else { return };
        let t: &MoveTable = &self.table;
        let pos = *self.game.position();
        let moves: Vec<Move> = self.tree.node_moves(0).collect();
        let mut flagged = Vec::new();
        if screen_royal_losses(t, &pos, &moves, th, &mut flagged) {
            return;
        }
        let priors: Vec<f32> = self.tree.edges(0).map(|e| self.tree.prior(e)).collect();
        let mut order: Vec<usize> = (0..moves.len()).filter(|&i| !flagged[i]).collect();
        order.sort_by(|&a, &b| priors[b].total_cmp(&priors[a]).then(a.cmp(&b)));
        let budget = match self.cfg.mate_guard_moves {
            0 => usize::MAX,
            k => k as usize,
        };
        let (mut replies, mut ours) = (MoveList::new(), MoveList::new());
        let (mut passed, mut mates) = (0usize, 0usize);
        for i in order {
            if passed >= budget {
                break;
            }
            let mut after = pos;
            after.play(t, moves[i]);
            if allows_mate_in_one(t, &after, th, &mut replies, &mut ours) {
                flagged[i] = true;
                mates += 1;
            } else {
                passed += 1;
            }
        }
        if mates == 0 || passed == 0 {
            return;
        }
        let new: Vec<f32> = priors.iter().zip(&flagged).map(|(&p, &f)| if f { 0.0 } else { p.max(1e-6) }).collect();
        set_priors(&mut self.tree, 0, &new);
        // set_priors reorders the edges: the flags follow their moves.
        let flagged_moves: Vec<Move> = moves.iter().zip(&flagged).filter(|(_, &f)| f).map(|(&m, _)| m).collect();
        self.root_mates = Some(self.tree.node_moves(0).map(|m| flagged_moves.contains(&m)).collect());
    }

    /// Whether more simulations should be started now (PUCT).
    fn puct_wants_more(&self) -> bool {
        self.root_visits() + (self.pending.len() as u32) < self.target
    }

    /// Queue up to `batch_per_tree` leaves for evaluation (terminal hits are backed up at
    /// once). Call with no leaves pending.
    pub fn gather(&mut self) {
        assert!(self.pending.is_empty(), "gather with leaves still pending");
        match self.phase {
            Phase::Done => return,
            Phase::RootEval => {
                self.paths.push(0);
                self.tree.nodes[0].vloss += 1;
                let pos = *self.game.position();
                let reps = self.game.repetitions() as u32;
                self.leaf_moves.extend(self.tree.node_moves(0));
                if let Some(th) = self.threats.as_mut() {
                    let all = screen_royal_losses(&self.table, &pos, &self.leaf_moves, th, &mut self.leaf_unsafe);
                    if all {
                        // Every move loses: the game goes on, so the priors stay as they are.
                        self.leaf_unsafe.iter_mut().for_each(|u| *u = false);
                    }
                }
                self.pending.push(Leaf {
                    node: 0,
                    path_start: 0,
                    path_len: 1,
                    moves_start: 0,
                    pos,
                    reps,
                    ply: self.root_ply,
                });
                return;
            }
            Phase::Running => {}
        }
        let max = self.cfg.batch_per_tree.max(1);
        self.yielded = false;
        let mut terminals = 0u32;
        while self.pending.len() < max && !self.full {
            let forced = match self.gumbel.as_mut() {
                Some(g) => match g.next() {
                    Some(e) => Some(e),
                    None => {
                        if self.pending.is_empty() && g.advance_phase(&self.tree, &self.cfg) {
                            continue;
                        }
                        break;
                    }
                },
                None => {
                    if !self.puct_wants_more() {
                        break;
                    }
                    None
                }
            };
            match self.simulate(forced) {
                Sim::Leaf => {}
                Sim::Terminal => {
                    self.sims += 1;
                    terminals += 1;
                    // A solved tree (e.g. a root win that PUCT now always selects) needs no
                    // network; with a time limit and no visit limit it would otherwise loop here
                    // for billions of simulations without the deadline ever being checked.
                    if terminals >= TERMINAL_SIMS_PER_GATHER && self.pending.is_empty() {
                        self.yielded = true;
                        break;
                    }
                }
                Sim::Collision => {
                    self.collisions += 1;
                    if let (Some(g), Some(e)) = (self.gumbel.as_mut(), forced) {
                        g.unissue(e);
                    }
                    break;
                }
                Sim::Full => {
                    if let (Some(g), Some(e)) = (self.gumbel.as_mut(), forced) {
                        g.unissue(e);
                    }
                    self.full = true;
                }
            }
        }
        if self.pending.is_empty() {
            let more = match self.gumbel.as_ref() {
                Some(g) => g.has_more(),
                None => self.puct_wants_more(),
            };
            if self.full || !more {
                self.phase = Phase::Done;
            }
        }
    }

    /// The evaluation requests of the queued leaves, in queue order.
    pub fn requests(&self) -> impl Iterator<Item = EvalRequest<'_>> + '_ {
        self.pending.iter().map(move |l| EvalRequest {
            position: &l.pos,
            table: &self.table,
            repetitions: l.reps,
            ply: l.ply,
            moves: &self.leaf_moves
                [l.moves_start as usize..l.moves_start as usize + self.tree.node(l.node).num_edges as usize],
        })
    }

    /// Write the evaluations of the queued leaves (same order as [`Search::requests`]) and
    /// back them up.
    pub fn apply(&mut self, evals: &[Evaluation]) {
        assert_eq!(evals.len(), self.pending.len(), "one evaluation per queued leaf");
        for (leaf, ev) in self.pending.iter().zip(evals) {
            let n_moves = self.tree.node(leaf.node).num_edges as usize;
            let start = leaf.moves_start as usize;
            let guarded = self.leaf_unsafe.get(start..start + n_moves).filter(|u| u.contains(&true));
            let floor = self.cfg.capture_prior;
            match guarded {
                Some(unsafe_moves) if ev.priors.len() == n_moves => {
                    // Safe moves keep their prior (at least a tiny one, so that they are not
                    // all zero); moves that lose the last royal at once get none.
                    self.prior_scratch.clear();
                    self.prior_scratch.extend(ev.priors.iter().zip(unsafe_moves.iter()).map(|(&p, &u)| {
                        if u {
                            0.0
                        } else if p.is_finite() {
                            p.max(1e-6)
                        } else {
                            1e-6
                        }
                    }));
                    if floor > 0.0 {
                        let moves = &self.leaf_moves[start..start + n_moves];
                        floor_captures(
                            &self.table,
                            &leaf.pos,
                            moves,
                            Some(unsafe_moves),
                            floor,
                            &mut self.prior_scratch,
                        );
                    }
                    set_priors(&mut self.tree, leaf.node, &self.prior_scratch);
                }
                _ if floor > 0.0 && ev.priors.len() == n_moves => {
                    self.prior_scratch.clear();
                    self.prior_scratch.extend_from_slice(&ev.priors);
                    let moves = &self.leaf_moves[start..start + n_moves];
                    floor_captures(&self.table, &leaf.pos, moves, None, floor, &mut self.prior_scratch);
                    set_priors(&mut self.tree, leaf.node, &self.prior_scratch);
                }
                _ => set_priors(&mut self.tree, leaf.node, &ev.priors),
            }
            let v = if ev.value.is_finite() { ev.value.clamp(-1.0, 1.0) } else { 0.0 };
            let d = if ev.draw.is_finite() { ev.draw.clamp(0.0, 1.0) } else { 0.0 };
            let n = &mut self.tree.nodes[leaf.node as usize];
            n.state = NodeState::Expanded;
            n.raw_value = v;
            let path = &self.paths[leaf.path_start as usize..(leaf.path_start + leaf.path_len) as usize];
            backup(&mut self.tree, path, v, d, true);
            if leaf.node != 0 {
                self.sims += 1;
            }
        }
        self.pending.clear();
        self.paths.clear();
        self.leaf_moves.clear();
        self.leaf_unsafe.clear();
        if self.phase == Phase::RootEval {
            self.phase = Phase::Running;
            self.init_root();
        }
    }

    /// One descent from the root; `forced` fixes the root edge (Gumbel).
    fn simulate(&mut self, forced: Option<usize>) -> Sim {
        let t: &MoveTable = &self.table;
        let mut pos = *self.game.position();
        let (mut ply, mut quiet) = (self.root_ply, self.root_quiet);
        self.path.clear();
        self.path_hashes.clear();
        self.path_moves.clear();
        self.path.push(0);
        let mut node = 0u32;
        loop {
            let n = self.tree.nodes[node as usize];
            match n.state {
                NodeState::Terminal => {
                    backup(&mut self.tree, &self.path, n.term as f32, (n.term == 0) as u8 as f32, false);
                    return Sim::Terminal;
                }
                NodeState::Pending => return Sim::Collision,
                NodeState::Expanded => {}
            }
            let e = match (node, forced) {
                (0, Some(e)) => e,
                (0, None) => self.root.select(&self.tree, &self.cfg),
                _ => select_inner(&self.tree, node, &self.cfg),
            };
            let mv = self.tree.edge_move(e);
            let eff = pos.play(t, mv);
            ply += 1;
            quiet = if eff.removed_any() { 0 } else { quiet + 1 };
            let c = self.tree.child(e);
            if c != NONE {
                node = c;
                self.path.push(c);
                self.path_hashes.push(pos.hash());
                self.path_moves.push(mv);
                continue;
            }
            // A new node.
            let class = classify(
                t,
                &self.game,
                &self.history,
                &self.path_hashes,
                &self.path_moves,
                mv,
                &pos,
                ply,
                quiet,
                &mut self.list,
            );
            let mut class = class;
            if let (Class::Open { .. }, Some(th)) = (&class, self.threats.as_mut()) {
                if screen_royal_losses(t, &pos, self.list.as_slice(), th, &mut self.unsafe_scratch) {
                    // Every move lets the opponent take the last royal: a loss, no network call.
                    class = Class::Terminal(-1);
                }
            }
            let edges: &[Move] = match class {
                Class::Terminal(_) => &[],
                Class::Open { .. } => self.list.as_slice(),
            };
            if !self.tree.has_room(edges.len()) {
                return Sim::Full;
            }
            let (state, term) = match class {
                Class::Terminal(v) => (NodeState::Terminal, v),
                Class::Open { .. } => (NodeState::Pending, 0),
            };
            let id = self.tree.add_node(state, term, edges);
            self.tree.edges[e].child = id;
            let parent = &mut self.tree.nodes[node as usize];
            parent.n_created += 1;
            if node == 0 {
                self.root.created(e, &self.tree);
            } else if parent.n_created as usize == SORTED_PREFIX {
                sort_tail(&mut self.tree, node, &mut self.sort_keys, &mut self.sort_edges);
            }
            self.path.push(id);
            match class {
                Class::Terminal(v) => {
                    backup(&mut self.tree, &self.path, v as f32, (v == 0) as u8 as f32, false);
                    return Sim::Terminal;
                }
                Class::Open { reps } => {
                    for &p in &self.path {
                        self.tree.nodes[p as usize].vloss += 1;
                    }
                    let path_start = self.paths.len() as u32;
                    self.paths.extend_from_slice(&self.path);
                    let moves_start = self.leaf_moves.len() as u32;
                    self.leaf_moves.extend_from_slice(self.list.as_slice());
                    if self.threats.is_some() {
                        self.leaf_unsafe.resize(moves_start as usize, false);
                        self.leaf_unsafe.extend_from_slice(&self.unsafe_scratch);
                    }
                    let path_len = self.path.len() as u32;
                    self.pending.push(Leaf { node: id, path_start, path_len, moves_start, pos, reps, ply });
                    return Sim::Leaf;
                }
            }
        }
    }

    /// The root move statistics and the move to play. Temperature sampling (PUCT, while the
    /// root ply is below `temperature_plies`) draws from the search's random generator.
    pub fn result(&mut self) -> SearchResult {
        let r = self.tree.edges(0);
        let first = r.start;
        let root = *self.tree.node(0);
        let legal = self.game.legal_moves();
        let mut by_move: Vec<(Move, usize)> = r.clone().map(|e| (self.tree.edge_move(e), e)).collect();
        by_move.sort_unstable();
        let edge_of = |m: Move| by_move.binary_search_by(|x| x.0.cmp(&m)).ok().map(|i| by_move[i].1);
        let visits_of = |e: usize| match self.tree.child(e) {
            NONE => 0,
            c => self.tree.node(c).visits,
        };
        let total: u32 = r.clone().map(visits_of).sum();
        let improved = self.gumbel.as_ref().map(|g| g.improved_policy(&self.tree, &self.cfg));
        let won = self.win_edge.or_else(|| self.proven_win_edge());
        let target = |e: usize| -> f32 {
            if let Some(w) = won {
                return (e == w) as u8 as f32;
            }
            match &improved {
                Some(p) => p[e - first],
                None if total > 0 => visits_of(e) as f32 / total as f32,
                None => self.tree.prior(e),
            }
        };
        let mut root_moves = Vec::with_capacity(legal.len());
        for m in &legal {
            let Some(e) = edge_of(*m) else { continue };
            let c = self.tree.child(e);
            let q = (c != NONE && self.tree.node(c).visits > 0).then(|| self.tree.node(c).q());
            root_moves.push(RootMove {
                mv: *m,
                prior: self.tree.prior(e),
                visits: visits_of(e),
                q,
                policy_target: target(e),
            });
        }
        let most = r
            .clone()
            .max_by(|&a, &b| {
                let key = |e: usize| {
                    let c = self.tree.child(e);
                    let q = if c == NONE { -2.0 } else { self.tree.node(c).q() };
                    (visits_of(e), q, self.tree.prior(e))
                };
                let (ka, kb) = (key(a), key(b));
                ka.0.cmp(&kb.0).then(ka.1.total_cmp(&kb.1)).then(ka.2.total_cmp(&kb.2)).then(b.cmp(&a))
            })
            .unwrap_or(first);
        let best = if let Some(w) = won {
            w
        } else if let Some(g) = self.gumbel.as_ref() {
            g.best(&self.tree, &self.cfg)
        } else if self.cfg.temperature > 0.0 && self.root_ply < self.cfg.temperature_plies && total > 0 {
            let inv = 1.0 / self.cfg.temperature as f64;
            let w: Vec<f64> = r.clone().map(|e| (visits_of(e) as f64).powf(inv)).collect();
            let sum: f64 = w.iter().sum();
            let mut x = self.rng.gen::<f64>() * sum;
            let mut pick = most;
            for (i, wi) in w.iter().enumerate() {
                if *wi > 0.0 {
                    pick = first + i;
                    if x < *wi {
                        break;
                    }
                    x -= wi;
                }
            }
            pick
        } else {
            most
        };
        let (value, wdl) = if won.is_some() { (1.0, [1.0, 0.0, 0.0]) } else { root_value_wdl(&root) };
        SearchResult {
            best: self.tree.edge_move(best),
            most_visited: self.tree.edge_move(most),
            root_moves,
            value,
            wdl,
            visits: total,
            simulations: self.sims,
            nodes: self.tree.node_count(),
            pv: self.pv(),
            gumbel: self.cfg.gumbel.is_some(),
        }
    }

    /// With the royal guard: a root move whose child is a proven loss for its side to move (a
    /// terminal node, such as a position where every move lets the last royal be taken), the
    /// most visited of them. It is played, and is the policy target, whatever the visits say.
    fn proven_win_edge(&self) -> Option<usize> {
        if !self.cfg.royal_guard {
            return None;
        }
        self.tree
            .edges(0)
            .filter(|&e| {
                let c = self.tree.child(e);
                c != NONE && self.tree.node(c).state == NodeState::Terminal && self.tree.node(c).term < 0
            })
            .max_by_key(|&e| (self.tree.node(self.tree.child(e)).visits, std::cmp::Reverse(e)))
    }

    /// The principal variation: most visited children from the root.
    pub fn pv(&self) -> Vec<Move> {
        if let Some(w) = self.win_edge.or_else(|| self.proven_win_edge()) {
            return vec![self.tree.edge_move(w)];
        }
        let mut pv = Vec::new();
        let mut node = 0u32;
        while self.tree.node(node).state == NodeState::Expanded && pv.len() < 64 {
            let best = self.tree.edges(node).filter(|&e| self.tree.child(e) != NONE).max_by_key(|&e| {
                let c = self.tree.node(self.tree.child(e));
                (c.visits, std::cmp::Reverse(e))
            });
            let Some(e) = best else { break };
            pv.push(self.tree.edge_move(e));
            node = self.tree.child(e);
        }
        pv
    }

    /// A thinking line for the search so far (depth = visits below the root).
    pub fn thinking(&self, elapsed: Duration) -> Thinking {
        let won = self.win_edge.is_some() || self.proven_win_edge().is_some();
        let (value, wdl) = if won { (1.0, [1.0, 0.0, 0.0]) } else { root_value_wdl(self.tree.node(0)) };
        Thinking {
            depth: self.root_visits(),
            score_cp: value_to_cp(value),
            wdl: Some(wdl),
            nodes: self.tree.node_count() as u64,
            time: elapsed,
            pv: self.pv(),
        }
    }
}

/// Root value and WDL from the root side to move's view.
fn root_value_wdl(root: &super::tree::Node) -> (f32, [f32; 3]) {
    if root.visits == 0 {
        return (0.0, [0.0, 1.0, 0.0]);
    }
    let q = -root.q();
    let d = (root.draw_sum / root.visits as f32).clamp(0.0, 1.0);
    let w = ((1.0 + q - d) / 2.0).clamp(0.0, 1.0);
    let l = ((1.0 - q - d) / 2.0).clamp(0.0, 1.0);
    (q, [w, d, l])
}

/// Add a value (from the leaf's side to move) to every node of `path` (root first).
fn backup(tree: &mut Tree, path: &[u32], v_leaf: f32, draw: f32, remove_vloss: bool) {
    let mut v = -v_leaf;
    for &p in path.iter().rev() {
        let n = &mut tree.nodes[p as usize];
        n.visits += 1;
        n.value_sum += v;
        n.draw_sum += draw;
        if remove_vloss {
            n.vloss -= 1;
        }
        v = -v;
    }
}

/// The capture floor ([`MctsConfig::capture_prior`]): normalise `priors` (non-finite or
/// negative entries count 0), then give share `w` of the mass to the moves that take material,
/// each in proportion to the plain material ([`material_value`]; a royal counts as a Great
/// General) of the other side's pieces it removes, captured or burned (each move is played on
/// a copy of the position: a Fire Demon's burns count like captures, and a promotion and its
/// plain twin are two moves), the rest in proportion to the priors. Moves the royal guard took
/// out (`excluded`) get nothing. Nothing changes where no allowed move takes material.
pub(crate) fn floor_captures(
    t: &MoveTable,
    pos: &Position,
    moves: &[Move],
    excluded: Option<&[bool]>,
    w: f32,
    priors: &mut [f32],
) {
    let us = pos.side_to_move();
    let allowed = |i: usize| excluded.is_none_or(|x| !x[i]);
    let taken: Vec<f32> =
        moves
            .iter()
            .enumerate()
            .map(|(i, &m)| {
                if !allowed(i) || m.is_null_pass() {
                    return 0.0;
                }
                let mut after = *pos;
                let eff = after.play(t, m);
                eff.captured()
                    .chain(eff.burned())
                    .filter(|(_, p)| p.color() != us)
                    .map(|(_, p)| {
                        if p.kind().is_royal() {
                            material_value(Kind::GreatGeneral)
                        } else {
                            material_value(p.kind())
                        }
                    })
                    .sum::<i32>() as f32
            })
            .collect();
    let total: f32 = taken.iter().sum();
    if total <= 0.0 {
        return;
    }
    let sum: f32 = priors.iter().map(|&p| if p.is_finite() { p.max(0.0) } else { 0.0 }).sum();
    let keep = if sum > 0.0 && sum.is_finite() { (1.0 - w) / sum } else { 0.0 };
    let w = if keep == 0.0 { 1.0 } else { w };
    for (p, &v) in priors.iter_mut().zip(&taken) {
        let base = if p.is_finite() { p.max(0.0) * keep } else { 0.0 };
        *p = base + w * v / total;
    }
}
