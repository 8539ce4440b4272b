//! Monte-Carlo tree search, generic over a batched [`Evaluator`] (this crate never depends on
//! a network library: `nn` implements the trait with its Burn network).
//!
//! * [`Search`]: one tree — PUCT with first-play urgency and virtual loss, Dirichlet noise at
//!   the root for self-play, or the Gumbel root search (`gumbel.rs`) for small budgets; terminal
//!   handling (royal capture, burns, no legal move, repetition, ply cap: see `search.rs`); tree
//!   reuse by [`Search::set_game`]; a compact arena (`tree.rs`) with a node and an edge budget.
//! * [`Driver`] / [`search_many`]: many searches share one evaluator, one call per round.
//! * [`MctsPlayer`]: a [`Player`] with thinking output, limits and tree reuse.
//! * [`UniformEvaluator`], [`MaterialEvaluator`]: evaluators for tests and network-free runs.
//!
//! # Self-play use
//! Keep one [`Search`] per game (`MctsConfig::self_play`): after each move call
//! [`Search::set_game`] (reuses the subtree of the moves played, frees the rest in place), for
//! a new game [`Search::restart`] (keeps the memory); step all of them with one
//! [`Driver::run`]; read [`Search::result`] for the move and the policy targets
//! ([`RootMove::policy_target`]: visit shares under PUCT, the completed-Q improved policy under
//! Gumbel). Everything is deterministic per `seed`, whatever the thread count.
//!
//! # Values
//! Values are in `[-1, 1]` from the side to move's point of view (win 1, draw 0, loss -1);
//! the draw probability travels alongside so WDL can be reported. Thinking lines map a value
//! `q` to centipawns by `cp = 1000 · atanh(q)` (|q| clamped to 0.999, so at most ±3800): the
//! inverse of [`MaterialEvaluator`]'s `tanh(material / 1000 cp)`.

mod blend;
mod driver;
mod gumbel;
mod puct;
mod search;
mod terminal;
mod tree;

pub use crate::report::{RootMove, SearchResult};
pub use blend::{QsearchBlend, QSEARCH_SCALE_CP};
pub use driver::{default_threads, search_many, Driver, DriverStats};
pub use gumbel::halving_phases;
pub use search::Search;
pub use tree::{Edge, Node, Tree, EDGE_BYTES, NODE_BYTES};

use crate::values::search_value as piece_value;
use crate::{EngineSpec, Limits, Player, SpecError, Thinking};
use engine::Game;
use engine::Move;
use engine::MoveTable;
use engine::Piece;
use engine::Position;
use std::time::{Duration, Instant};

/// Search settings. [`MctsConfig::new`] gives the defaults for a visit budget (Gumbel below
/// 100 visits); [`MctsConfig::self_play`] adds exploration (root noise, temperature).
#[derive(Clone, Debug, PartialEq)]
pub struct MctsConfig {
    /// Visit budget. PUCT: total visits below the root, reused ones included; Gumbel: new
    /// simulations (the halving schedule).
    pub visits: u32,
    /// PUCT exploration: `c(N) = cpuct + cpuct_factor · ln((N + cpuct_base) / cpuct_base)`,
    /// score `Q + c(N) · P · √N / (1 + n)` (AlphaZero's form and constants).
    pub cpuct: f32,
    pub cpuct_base: f32,
    pub cpuct_factor: f32,
    /// First-play urgency: an unvisited move's Q is the parent's Q minus
    /// `fpu_reduction · √(prior mass of the visited moves)`.
    pub fpu_reduction: f32,
    /// Self-play exploration: Dirichlet noise at a PUCT root, Gumbel noise at a Gumbel root.
    pub noise: bool,
    /// Total Dirichlet concentration: each of the `L` legal root moves gets
    /// `α = dirichlet_alpha / L` (10 ≈ AlphaZero's chess 0.3 × 35 moves, shogi 0.15 × 92).
    pub dirichlet_alpha: f32,
    /// Weight of the noise in the root priors.
    pub dirichlet_fraction: f32,
    /// Value counted for each in-flight visit (as a loss for the mover) while batching.
    pub virtual_loss: f32,
    /// Gumbel root search with this many considered actions; `None` = PUCT at the root.
    pub gumbel: Option<usize>,
    pub gumbel_c_visit: f32,
    pub gumbel_c_scale: f32,
    /// PUCT move choice: visits^(1/T) sampling while the game's ply is below
    /// `temperature_plies`, most visits afterwards (T = 0: always most visits).
    pub temperature: f32,
    pub temperature_plies: u32,
    /// Most nodes (28 bytes each) and edges (16 bytes each) a tree may hold; a search that
    /// reaches either stops early with what it has.
    pub node_budget: usize,
    pub edge_budget: usize,
    /// Leaves one tree contributes to an evaluator call (virtual loss keeps them apart).
    pub batch_per_tree: usize,
    pub seed: u64,
    /// Royal guard: when a node is created, each of its moves is screened for leaving the
    /// mover's last royal capturable on the opponent's next move (the alpha-beta engine's check
    /// test); such moves get prior 0 (the search and the policy target pass them over while a
    /// safe move exists), and a node whose every move is such a loss is scored as a loss for
    /// its side to move without a network call (a one-move proof, as a node whose side to move
    /// takes the last royal is scored a win). Spec key `guard` (0/1; 2 adds the mate guard).
    pub royal_guard: bool,
    /// Mate guard (with `royal_guard`): at the root, each move is also screened for letting
    /// the opponent mate in one (a reply that attacks the last royal and leaves no escape,
    /// [`terminal::allows_mate_in_one`](self::terminal)); such moves get prior 0 too while a
    /// move without either flaw exists, so neither the move played nor the policy target is
    /// one. At the root only (a few milliseconds a search): the two-ply test is too slow for
    /// every node. Spec key `guard=2`.
    pub mate_guard: bool,
    /// Mate guard budget: the root's moves are screened in decreasing prior order until this
    /// many pass (0: every move is screened). Self-play, whose Gumbel root considers only its
    /// top few moves, screens a few times that many: a middlegame root has 100–200 moves and
    /// the full screen costs tens of milliseconds there, more than the 32-visit search.
    pub mate_guard_moves: u32,
    /// Capture floor: at every expanded node a share `w` of the prior goes to the side to
    /// move's moves that take material, spread in proportion to the material each removes,
    /// captured or burned ([`crate::values::material_value`]; each move is played on a copy):
    /// `p' = (1 − w)·p + w·v_i / Σv` for such a move, `(1 − w)·p` for any other (nothing
    /// changes where there is none). A network that has not learned what a hanging piece or a
    /// Fire Demon's burn is worth gives the move a tiny prior, and a 32-visit search then never
    /// looks at it, for either side; the floor makes the search look. Spec key `captures`
    /// (0 to 1; default 0, off).
    pub capture_prior: f32,
}

/// Below this many visits [`MctsConfig::new`] picks the Gumbel root search.
pub const GUMBEL_BELOW_VISITS: u32 = 100;
/// Default considered actions of the Gumbel root search.
pub const GUMBEL_CONSIDERED: usize = 16;

impl MctsConfig {
    /// Defaults for a budget of `visits`: Gumbel (16 considered actions) below 100 visits,
    /// PUCT from 100 on; no noise, temperature 0.
    pub fn new(visits: u32) -> MctsConfig {
        MctsConfig {
            visits,
            cpuct: 1.25,
            cpuct_base: 19652.0,
            cpuct_factor: 1.0,
            fpu_reduction: 0.25,
            noise: false,
            dirichlet_alpha: 10.0,
            dirichlet_fraction: 0.25,
            virtual_loss: 1.0,
            gumbel: (visits < GUMBEL_BELOW_VISITS).then_some(GUMBEL_CONSIDERED),
            gumbel_c_visit: 50.0,
            gumbel_c_scale: 0.1,
            temperature: 0.0,
            temperature_plies: 0,
            node_budget: 1 << 18,
            edge_budget: 1 << 24,
            batch_per_tree: 4,
            seed: 0,
            royal_guard: false,
            mate_guard: false,
            mate_guard_moves: 0,
            capture_prior: 0.0,
        }
    }
    /// Self-play settings: [`MctsConfig::new`] plus root noise and, for PUCT, temperature 1
    /// for the first 30 plies.
    pub fn self_play(visits: u32) -> MctsConfig {
        MctsConfig { noise: true, temperature: 1.0, temperature_plies: 30, ..MctsConfig::new(visits) }
    }

    /// Keys understood by [`MctsConfig::apply_spec`].
    pub const SPEC_KEYS: [&'static str; 13] = [
        "visits",
        "nodes",
        "time",
        "cpuct",
        "gumbel",
        "batch",
        "seed",
        "noise",
        "temp",
        "temp_plies",
        "fpu",
        "guard",
        "captures",
    ];

    /// Read the search keys of an engine spec (`mcts:visits=64,gumbel=8,...`), each in its
    /// range: `visits` (`nodes` is a synonym; 1 to 10,000,000), `time` (per move), `cpuct`
    /// (0 to 100), `fpu` (0 to 10), `gumbel` (considered actions, 2 to 256, or 0 = PUCT; unset:
    /// by the visit budget), `batch` (1 to 4096), `seed`, `noise` (0/1), `temp` (0 to 10),
    /// `temp_plies` (0 to 1000), `guard` (0/1/2, [`MctsConfig::royal_guard`], [`MctsConfig::mate_guard`]),
    /// `captures` (0 to 1, [`MctsConfig::capture_prior`]). Other keys are left
    /// to the caller (e.g. `checkpoint`).
    pub fn apply_spec(spec: &EngineSpec) -> Result<(MctsConfig, Limits), SpecError> {
        let visits = match spec.number_in::<u32>("visits", 1, MAX_VISITS)? {
            Some(v) => Some(v),
            None => spec.number_in::<u32>("nodes", 1, MAX_VISITS)?,
        };
        let mut c = MctsConfig::new(visits.unwrap_or(800));
        if let Some(x) = spec.number_in("cpuct", 0.0, 100.0)? {
            c.cpuct = x;
        }
        if let Some(x) = spec.number_in("fpu", 0.0, 10.0)? {
            c.fpu_reduction = x;
        }
        if let Some(g) = spec.number::<usize>("gumbel")? {
            if g == 1 || g > MAX_GUMBEL {
                return Err(spec.out_of_range("gumbel", g, format!("0 (PUCT) or 2 to {MAX_GUMBEL}")));
            }
            c.gumbel = (g > 0).then_some(g);
        }
        if let Some(b) = spec.number_in::<usize>("batch", 1, 4096)? {
            c.batch_per_tree = b;
        }
        if let Some(s) = spec.number("seed")? {
            c.seed = s;
        }
        if let Some(n) = spec.number_in::<u8>("noise", 0, 1)? {
            c.noise = n != 0;
        }
        if let Some(t) = spec.number_in("temp", 0.0, 10.0)? {
            c.temperature = t;
        }
        if let Some(t) = spec.number_in("temp_plies", 0, 1000)? {
            c.temperature_plies = t;
        }
        if let Some(g) = spec.number_in::<u8>("guard", 0, 2)? {
            c.royal_guard = g != 0;
            c.mate_guard = g == 2;
        }
        if let Some(w) = spec.number_in("captures", 0.0, 1.0)? {
            c.capture_prior = w;
        }
        let limits = Limits { nodes: visits.map(|v| v as u64), movetime: spec.duration("time")?, ..Limits::default() };
        Ok((c, limits))
    }
}

/// Most visits a spec may ask for per move.
pub const MAX_VISITS: u32 = 10_000_000;
/// Most considered actions of a Gumbel root.
pub const MAX_GUMBEL: usize = 256;

impl Default for MctsConfig {
    fn default() -> Self {
        MctsConfig::new(800)
    }
}

/// What the network needs to evaluate one leaf.
#[derive(Clone, Copy)]
pub struct EvalRequest<'a> {
    pub position: &'a Position,
    /// The rules (for the rule planes and the ply cap of the encoding).
    pub table: &'a MoveTable,
    /// Earlier occurrences of this position (root game history plus search path).
    pub repetitions: u32,
    /// Plies played since the game's start.
    pub ply: u32,
    /// The legal moves; the priors must come back in this order.
    pub moves: &'a [Move],
}

/// An evaluator's answer for one request.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Evaluation {
    /// One prior per requested move, same order (normalised by the search if they do not sum
    /// to 1; all zero or non-finite = uniform).
    pub priors: Vec<f32>,
    /// Value in `[-1, 1]` for the side to move (`win - loss`).
    pub value: f32,
    /// Draw probability (0 when the evaluator has no WDL head).
    pub draw: f32,
}

impl Evaluation {
    /// Set value and draw from win/draw/loss probabilities (side to move).
    pub fn set_wdl(&mut self, wdl: [f32; 3]) {
        self.value = wdl[0] - wdl[2];
        self.draw = wdl[1];
    }
    pub fn wdl(&self) -> [f32; 3] {
        [(1.0 + self.value - self.draw) / 2.0, self.draw, (1.0 - self.value - self.draw) / 2.0]
    }
}

/// A batched position evaluator (the network). `out[i]` answers `requests[i]`; the buffers in
/// `out` are reused from call to call (clear and refill `priors`).
pub trait Evaluator {
    fn evaluate(&mut self, requests: &[EvalRequest<'_>], out: &mut [Evaluation]);
}

impl<E: Evaluator + ?Sized> Evaluator for &mut E {
    fn evaluate(&mut self, requests: &[EvalRequest<'_>], out: &mut [Evaluation]) {
        (**self).evaluate(requests, out)
    }
}
impl<E: Evaluator + ?Sized> Evaluator for Box<E> {
    fn evaluate(&mut self, requests: &[EvalRequest<'_>], out: &mut [Evaluation]) {
        (**self).evaluate(requests, out)
    }
}

/// Equal priors, value 0.
#[derive(Clone, Copy, Debug, Default)]
pub struct UniformEvaluator;

impl Evaluator for UniformEvaluator {
    fn evaluate(&mut self, requests: &[EvalRequest<'_>], out: &mut [Evaluation]) {
        for (r, o) in requests.iter().zip(out.iter_mut()) {
            o.priors.clear();
            o.priors.resize(r.moves.len(), 1.0 / r.moves.len().max(1) as f32);
            o.value = 0.0;
            o.draw = 0.0;
        }
    }
}

/// Material evaluator: value `tanh((own − opponent material) / value_scale)` (royals not
/// counted; values of [`crate::values::search_value`]); priors `softmax(captured value /
/// capture_scale)`, a royal capture counting `ROYAL_LOGIT` logits — captures of big pieces
/// first, quiet moves equal.
#[derive(Clone, Debug)]
pub struct MaterialEvaluator {
    pub value_scale: f32,
    pub capture_scale: f32,
    values: [i32; 256],
    royal: [bool; 256],
}

impl MaterialEvaluator {
    /// Logit bonus of a move that captures a royal.
    pub const ROYAL_LOGIT: f32 = 20.0;

    pub fn new() -> MaterialEvaluator {
        let mut values = [0; 256];
        let mut royal = [false; 256];
        for p in Piece::all() {
            let k = p.kind();
            royal[p.code() as usize] = k.is_royal();
            values[p.code() as usize] = if k.is_royal() { 0 } else { piece_value(k) };
        }
        MaterialEvaluator { value_scale: 1000.0, capture_scale: 250.0, values, royal }
    }

    /// Material of the side to move minus the opponent's, in centipawns (royals excluded).
    pub fn material(&self, pos: &Position) -> i32 {
        let us = pos.side_to_move();
        let mut d = 0;
        for c in [us, us.other()] {
            let sign = if c == us { 1 } else { -1 };
            for s in pos.squares_of(c) {
                d += sign * self.values[pos.cell(s.pad()) as usize];
            }
        }
        d
    }

    fn logit(&self, pos: &Position, m: Move) -> f32 {
        if m.is_null_pass() {
            return 0.0;
        }
        let us = pos.side_to_move();
        let mut l = 0.0;
        let mut victim = |pad: usize| {
            let code = pos.cell(pad);
            if let Some(p) = Piece::from_code(code) {
                if p.color() != us {
                    l += if self.royal[code as usize] {
                        Self::ROYAL_LOGIT
                    } else {
                        self.values[code as usize] as f32 / self.capture_scale
                    };
                }
            }
        };
        for v in m.via_pad() {
            if v != 0 {
                victim(v as usize);
            }
        }
        if m.to_pad() != m.from_pad() {
            victim(m.to_pad());
        }
        l
    }
}

impl Default for MaterialEvaluator {
    fn default() -> Self {
        MaterialEvaluator::new()
    }
}

impl Evaluator for MaterialEvaluator {
    fn evaluate(&mut self, requests: &[EvalRequest<'_>], out: &mut [Evaluation]) {
        for (r, o) in requests.iter().zip(out.iter_mut()) {
            o.priors.clear();
            o.priors.extend(r.moves.iter().map(|&m| self.logit(r.position, m)));
            let mx = o.priors.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let mut sum = 0.0;
            for p in o.priors.iter_mut() {
                *p = (*p - mx).exp();
                sum += *p;
            }
            o.priors.iter_mut().for_each(|p| *p /= sum);
            o.value = (self.material(r.position) as f32 / self.value_scale).tanh();
            o.draw = 0.0;
        }
    }
}

/// Centipawns for a value: `1000 · atanh(q)`, |q| clamped to 0.999.
pub fn value_to_cp(q: f32) -> i32 {
    (1000.0 * q.clamp(-0.999, 0.999).atanh()).round() as i32
}

impl Search {
    /// Run this search alone to its budget (one evaluator call per round).
    pub fn run<E: Evaluator + ?Sized>(&mut self, evaluator: &mut E) {
        Driver::new(1).run(std::slice::from_mut(self), evaluator);
    }
}

/// An MCTS engine for the [`Player`] interface, with tree reuse across moves.
pub struct MctsPlayer<E: Evaluator> {
    pub evaluator: E,
    cfg: MctsConfig,
    limits: Limits,
    search: Option<Search>,
    name: String,
    /// Keep the subtree of the moves played between calls (the tree's memory is kept in any
    /// case).
    pub reuse: bool,
    driver: Driver,
    last: Option<SearchResult>,
    /// A new game started: do not reuse the tree.
    fresh: bool,
}

impl<E: Evaluator> MctsPlayer<E> {
    pub fn new(evaluator: E, cfg: MctsConfig, limits: Limits) -> MctsPlayer<E> {
        MctsPlayer {
            evaluator,
            cfg,
            limits,
            search: None,
            name: "mcts".into(),
            reuse: true,
            driver: Driver::new(1),
            last: None,
            fresh: true,
        }
    }
    /// A player from an engine spec (keys of [`MctsConfig::apply_spec`] plus `extra_keys`,
    /// which the caller handles, e.g. `checkpoint`).
    pub fn from_spec(spec: &EngineSpec, evaluator: E, extra_keys: &[&str]) -> Result<MctsPlayer<E>, SpecError> {
        let mut keys: Vec<&str> = MctsConfig::SPEC_KEYS.to_vec();
        keys.extend_from_slice(extra_keys);
        spec.check_keys(&keys)?;
        let (cfg, limits) = MctsConfig::apply_spec(spec)?;
        let mut p = MctsPlayer::new(evaluator, cfg, limits);
        p.name = spec.to_string();
        Ok(p)
    }
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }
    pub fn config(&self) -> &MctsConfig {
        &self.cfg
    }
    /// The last search's result (policy targets for training).
    pub fn last_result(&self) -> Option<&SearchResult> {
        self.last.as_ref()
    }
    /// The current tree, if any.
    pub fn search(&self) -> Option<&Search> {
        self.search.as_ref()
    }

    /// Search `game` with this player's limits and return the full result.
    pub fn think(&mut self, game: &Game, info: &mut dyn FnMut(&Thinking)) -> SearchResult {
        let start = Instant::now();
        let visits = self.limits.nodes.map(|n| n.min(u32::MAX as u64) as u32).unwrap_or(self.cfg.visits);
        let deadline = self.limits.time_budget().map(|d| start + d);
        // A time limit alone: PUCT searches until the deadline; Gumbel keeps its schedule.
        let visits = if deadline.is_some() && self.limits.nodes.is_none() && self.cfg.gumbel.is_none() {
            u32::MAX
        } else {
            visits
        };
        // The arena is kept between moves and games; only its contents are reused or not.
        let mut search = match self.search.take() {
            Some(mut s) => {
                s.set_visits(visits);
                if self.reuse && !self.fresh {
                    s.set_game(game);
                } else {
                    s.restart(game);
                }
                s
            }
            None => Search::new(MctsConfig { visits, ..self.cfg.clone() }, game),
        };
        self.fresh = false;
        let mut next_report = 16u32;
        let mut last_report = start;
        self.driver.run_until(std::slice::from_mut(&mut search), &mut self.evaluator, &mut |s: &[&Search]| {
            let now = Instant::now();
            let v = s[0].root_visits();
            if v >= next_report || now.duration_since(last_report) >= Duration::from_secs(1) {
                info(&s[0].thinking(now - start));
                while next_report <= v {
                    next_report = next_report.saturating_mul(2);
                }
                last_report = now;
            }
            // Never stop before the root has its evaluation.
            s[0].tree().node(0).visits > 0 && deadline.is_some_and(|d| now >= d)
        });
        info(&search.thinking(start.elapsed()));
        let r = search.result();
        self.search = Some(search);
        self.last = Some(r.clone());
        r
    }
}

impl<E: Evaluator + Send> Player for MctsPlayer<E> {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn choose(&mut self, game: &Game, info: &mut dyn FnMut(&Thinking)) -> Move {
        self.think(game, info).best
    }
    fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }
    fn last_search(&self) -> Option<&SearchResult> {
        self.last.as_ref()
    }
    fn new_game(&mut self) {
        self.fresh = true;
        self.last = None;
    }
}
