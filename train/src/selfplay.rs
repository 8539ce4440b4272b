//! Self-play: `concurrent_games` games stepped together, one move each per round, through one
//! [`Driver`] and one batched evaluator (the network).
//!
//! Per move and per game:
//! - **Playout cap randomisation** (KataGo): with probability `full_search_fraction` the move
//!   gets a full search of `visits` and becomes a policy target; otherwise a cheap search of
//!   `cheap_visits` that is only a value target.
//! - **Search**: Gumbel root search (`gumbel_considered` actions, Gumbel noise at the root) with
//!   the completed-Q improved policy as the policy target; the tree is reused move to move.
//! - **Move choice**: sampled from the policy target while the game's ply is below
//!   `temperature_plies`, then the search's choice (the sequential-halving winner).
//! - **Resignation**: a side whose root value stays below `resign_threshold` for `resign_plies`
//!   of its consecutive moves resigns, except in a share `resign_playout_fraction` of the games,
//!   which are played out and record who would have resigned (the false-resignation check).
//! - **Ply cap**: the rules' own cap, and `max_plies` when set (a draw).
//!
//! # Determinism
//! Game number `i` draws everything (playout caps, move sampling, resignation playout, the
//! search's noise) from generators seeded by (`seed`, `i`), games get their numbers in slot
//! order, and the driver's results do not depend on its thread count. So the same seed, network
//! and starting game number give the same games. (A training run changes the network at
//! checkpoints, which happen after a fixed number of steps, scheduled by position counts, not
//! time; so a whole run from scratch repeats too, up to the floating-point determinism of the
//! backend.)

use crate::replay::{GameFile, PlyRecord};
use engine::game::{DrawReason, Game, Outcome};
use engine::mcts::{Driver, Evaluator, MctsConfig, Search, SearchResult};
use engine::{notation, Color, MoveTable, Position};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

/// Self-play settings (from the run config).
#[derive(Clone, Debug)]
pub struct SelfPlayConfig {
    pub concurrent_games: usize,
    pub visits: u32,
    pub cheap_visits: u32,
    pub gumbel_considered: usize,
    pub full_search_fraction: f64,
    pub temperature_plies: u32,
    pub resign_threshold: f32,
    pub resign_plies: u32,
    pub resign_playout_fraction: f64,
    /// 0 = the rules' cap only.
    pub max_plies: u32,
    pub threads: usize,
    pub seed: u64,
    pub rules_tag: String,
}

impl SelfPlayConfig {
    pub fn from_run(c: &crate::config::RunConfig, rules_tag: &str) -> SelfPlayConfig {
        SelfPlayConfig {
            concurrent_games: c.concurrent_games,
            visits: c.visits,
            cheap_visits: c.cheap_visits,
            gumbel_considered: c.gumbel_considered,
            full_search_fraction: c.full_search_fraction,
            temperature_plies: c.temperature_plies,
            resign_threshold: c.resign_threshold,
            resign_plies: c.resign_plies,
            resign_playout_fraction: c.resign_playout_fraction,
            max_plies: c.max_plies,
            threads: c.threads,
            seed: c.seed,
            rules_tag: rules_tag.to_string(),
        }
    }
}

/// SplitMix64 of (seed, index): independent-looking seeds.
pub fn mix(seed: u64, index: u64) -> u64 {
    let mut z = seed ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(0x6A09_E667_F3BC_C909);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// One game in progress.
struct Slot {
    game: Game,
    index: u64,
    seed: u64,
    rng: ChaCha8Rng,
    plies: Vec<PlyRecord>,
    resign_off: bool,
    /// Consecutive own moves below the resignation threshold, per colour.
    low: [u32; 2],
    would_resign: Option<Color>,
    net_step: u64,
    /// Whether the search in progress is a full one (set before the search starts: the Gumbel
    /// schedule is fixed when the root is set up).
    full: bool,
}

/// A finished game and its number.
pub struct Finished {
    pub index: u64,
    pub file: GameFile,
}

/// What one round did (for metrics).
#[derive(Clone, Copy, Debug, Default)]
pub struct RoundStats {
    /// Positions (plies) played.
    pub positions: u64,
    /// Of which full searches (policy targets).
    pub full: u64,
    /// Sum of the network policy's entropy (nats) at the roots, over the positions.
    pub entropy_sum: f64,
    /// Network evaluations.
    pub evaluations: u64,
}

/// The self-play games of a run.
pub struct SelfPlay {
    cfg: SelfPlayConfig,
    table: Arc<MoveTable>,
    slots: Vec<Slot>,
    searches: Vec<Search>,
    driver: Driver,
    next_game: u64,
    /// Training step of the network now playing (recorded in each game file).
    pub net_step: u64,
}

impl SelfPlay {
    /// Start `concurrent_games` games numbered from `first_game`.
    pub fn new(cfg: SelfPlayConfig, table: Arc<MoveTable>, first_game: u64, net_step: u64) -> SelfPlay {
        let mut sp = SelfPlay {
            driver: Driver::new(cfg.threads),
            slots: Vec::new(),
            searches: Vec::new(),
            next_game: first_game,
            net_step,
            table,
            cfg,
        };
        for _ in 0..sp.cfg.concurrent_games {
            let (slot, search) = sp.new_game();
            sp.slots.push(slot);
            sp.searches.push(search);
        }
        sp
    }

    /// The number the next new game will get.
    pub fn next_game(&self) -> u64 {
        self.next_game
    }

    fn mcts_config(&self, seed: u64) -> MctsConfig {
        MctsConfig {
            gumbel: Some(self.cfg.gumbel_considered),
            noise: true,
            temperature: 0.0,
            temperature_plies: 0,
            seed,
            ..MctsConfig::new(self.cfg.visits)
        }
    }

    fn new_game(&mut self) -> (Slot, Search) {
        let index = self.next_game;
        self.next_game += 1;
        let seed = mix(self.cfg.seed, index);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let resign_off = rng.gen_bool(self.cfg.resign_playout_fraction);
        let full = rng.gen_bool(self.cfg.full_search_fraction);
        let game = Game::new(self.table.clone(), Position::start());
        let mut mcts = self.mcts_config(mix(seed, 0x5EA4C4));
        mcts.visits = if full { self.cfg.visits } else { self.cfg.cheap_visits };
        let search = Search::new(mcts, &game);
        let slot = Slot {
            game,
            index,
            seed,
            rng,
            plies: Vec::new(),
            resign_off,
            low: [0, 0],
            would_resign: None,
            net_step: self.net_step,
            full,
        };
        (slot, search)
    }

    /// Play one move in every game; returns the games that finished (new ones take their
    /// slots).
    pub fn round<E: Evaluator + ?Sized>(&mut self, evaluator: &mut E) -> (Vec<Finished>, RoundStats) {
        let mut stats = RoundStats::default();
        let before = self.driver.stats.evaluated;
        self.driver.run(&mut self.searches, evaluator);
        stats.evaluations = self.driver.stats.evaluated - before;
        let mut finished = Vec::new();
        for i in 0..self.slots.len() {
            let r = self.searches[i].result();
            let full = self.slots[i].full;
            stats.positions += 1;
            stats.full += full as u64;
            stats.entropy_sum += entropy(&r);
            if self.play(i, &r, full) {
                let (slot, search) = self.new_game();
                let old = std::mem::replace(&mut self.slots[i], slot);
                self.searches[i] = search;
                finished.push(self.finish(old));
            } else {
                let slot = &mut self.slots[i];
                slot.full = slot.rng.gen_bool(self.cfg.full_search_fraction);
                self.searches[i].set_visits(if slot.full { self.cfg.visits } else { self.cfg.cheap_visits });
                self.searches[i].set_game(&slot.game);
            }
        }
        (finished, stats)
    }

    /// Record and play the move of slot `i`; returns whether the game is over.
    fn play(&mut self, i: usize, r: &SearchResult, full: bool) -> bool {
        let cfg = &self.cfg;
        let slot = &mut self.slots[i];
        let us = slot.game.side_to_move();
        let mut policy = Vec::new();
        if full {
            for rm in &r.root_moves {
                let Some(idx) = nn::policy::move_index(rm.mv, us) else { continue };
                let q = (rm.policy_target.clamp(0.0, 1.0) * 65535.0).round() as u16;
                if q > 0 {
                    policy.push((idx as u32, q));
                }
            }
        }
        // Move choice: sample the policy target early, then the search's choice.
        let mv = if (slot.game.ply_count() as u32) < cfg.temperature_plies {
            let total: f32 = r.root_moves.iter().map(|m| m.policy_target.max(0.0)).sum();
            let mut x = slot.rng.gen::<f32>() * total;
            let mut pick = r.best;
            for m in &r.root_moves {
                let w = m.policy_target.max(0.0);
                if w > 0.0 {
                    pick = m.mv;
                    if x < w {
                        break;
                    }
                    x -= w;
                }
            }
            pick
        } else {
            r.best
        };
        slot.plies.push(PlyRecord { mv: notation::to_cecp(mv), value: r.value, policy, is_policy_target: full });
        // Resignation.
        let side = (us == Color::White) as usize;
        slot.low[side] = if r.value < cfg.resign_threshold { slot.low[side] + 1 } else { 0 };
        let resigns = cfg.resign_plies > 0 && slot.low[side] >= cfg.resign_plies && cfg.resign_threshold > -1.0;
        if resigns && slot.resign_off {
            slot.would_resign.get_or_insert(us);
        }
        if let Err(e) = slot.game.play(mv) {
            // The search only offers legal moves; should this ever fail, end the game as a draw
            // rather than stop the run.
            eprintln!("warning: self-play game {}: {e}; ended as a draw", slot.index);
            slot.game.set_outcome(Outcome::Draw(DrawReason::Agreement));
        }
        if resigns && !slot.resign_off && !slot.game.is_over() {
            slot.game.resign(us);
        }
        if !slot.game.is_over() && cfg.max_plies > 0 && slot.game.ply_count() as u32 >= cfg.max_plies {
            slot.game.set_outcome(Outcome::Draw(DrawReason::PlyCap));
        }
        slot.game.is_over()
    }

    fn finish(&self, s: Slot) -> Finished {
        let file = GameFile {
            rules: self.cfg.rules_tag.clone(),
            start_fen: s.game.start_position().to_fen(),
            seed: s.seed,
            net_step: s.net_step,
            outcome: s.game.outcome().expect("finished game"),
            resign_off: s.resign_off,
            would_resign: s.would_resign,
            teacher: false,
            plies: s.plies,
        };
        Finished { index: s.index, file }
    }
}

/// Entropy (nats) of the network's priors at the root.
fn entropy(r: &SearchResult) -> f64 {
    let total: f64 = r.root_moves.iter().map(|m| m.prior.max(0.0) as f64).sum();
    if total <= 0.0 {
        return 0.0;
    }
    r.root_moves.iter().map(|m| m.prior.max(0.0) as f64 / total).filter(|&p| p > 0.0).map(|p| -p * p.ln()).sum()
}
