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
//! - **Material adjudication** (`selfplay_adjudicate_cp`, off by default): a side ahead by at
//!   least that much plain material for `selfplay_adjudicate_plies` consecutive plies wins, as
//!   in the arena. Games of weak networks that guard their royals run on for hundreds of plies
//!   and end drawn at the cap whatever the material; adjudicated, they end sooner and their
//!   result agrees with what the arena scores.
//! - **Random starts** (`selfplay_random_plies`, off by default): each pure self-play game
//!   starts from the position reached by 0 to that many uniformly random plies (the count drawn
//!   uniformly), which are not recorded. The arena measures on openings of a few random plies;
//!   from the start position alone self-play keeps to the lines its sampled openings favour.
//! - **Ply cap**: the rules' own cap, and `max_plies` when set (a draw).
//! - **Opponent games** (`opponent_fraction`, off by default): in that share of the games one
//!   side, Black in even-numbered games and White in odd ones, is `opponent_engine` (an
//!   alpha-beta searcher at a fixed depth) instead of the network. Self-play lets many weak
//!   moves pass, because the same network plays both sides; an opponent that defends and takes
//!   what is left hanging shows the network what those moves cost. The opponent's moves are
//!   played at once (the slot's search only ever sees the network to move) and recorded as
//!   value-only plies (no policy target: the policy still learns only from the network's own
//!   searches); the network's moves are recorded as in any other game. The opponent resigns as
//!   the bootstrap teacher does (`bootstrap.rs`), and the network by the usual rule. With
//!   `opponent_random_plies` each opponent game opens with that many uniformly random plies
//!   (value-only, no search value), as arena games do: from the start position alone, the
//!   network learnt a few lines that beat the opponent there and little that carried over.
//!   With `opponent_policy_fraction` that share of the opponent's moves are also one-hot
//!   policy targets (as the bootstrap teacher's moves are): the network imitates its replies.
//! - **Pool games** (`pool_fraction`, off by default): in that share of the games that are not
//!   opponent games, one side (Black in even-numbered games, White in odd ones) is an older
//!   network of the run's own pool, given by the worker ([`SelfPlay::round`]'s `pool`); games
//!   start as pool games only while there is one. Its searches are batched apart from the
//!   newest network's, restart at each of its moves (the two networks share no tree), and its
//!   moves are value-only plies, as an opponent's are; the game file names its colour as an
//!   opponent game's.
//!
//! # Determinism
//! Game number `i` draws everything (playout caps, move sampling, resignation playout, the
//! search's noise) from generators seeded by (`seed`, `i`), games get their numbers in a fixed
//! order (each round: slot order for the games the network's moves ended, then for those the
//! opponent's moves ended), and neither the driver's results nor the opponent's (one engine
//! per game) depend on the thread count. So the same seed, network and starting game number
//! give the same games. (A training run changes the network at
//! checkpoints, which happen after a fixed number of steps, scheduled by position counts, not
//! time; so a whole run from scratch repeats too, up to the floating-point determinism of the
//! backend.)

use crate::config::FieldError;
use crate::games::{adjudicate, cap_plies, check_engine, play_or_draw, resigns, score_value, Finished};
use crate::replay::{policy_surprise, stored_surprise, GameFile, PlyRecord};
use engine::Game;
use engine::{notation, Color, MoveTable, Position};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use search::alphabeta::AlphaBeta;
use search::mcts::{Driver, Evaluator, MctsConfig, Search, SearchResult};
use search::mix_seed;
use search::values::{MaterialLead, ValueTable};
use search::EngineSpec;
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
    /// Share of games played against `opponent` (checked with the run config); `opponent` is
    /// `None` when the share is 0.
    pub opponent_fraction: f64,
    pub opponent: Option<EngineSpec>,
    /// Uniformly random plies that open each opponent game (0 = the start position).
    pub opponent_random_plies: u32,
    /// Share of the opponent's moves that are one-hot policy targets (0 = value-only).
    pub opponent_policy_fraction: f64,
    /// Pure self-play games open with 0 to this many uniformly random plies (unrecorded).
    pub selfplay_random_plies: u32,
    /// Share of the other games played against the pool network (when there is one).
    pub pool_fraction: f64,
    /// The searches' royal guard (`MctsConfig::royal_guard`).
    pub royal_guard: bool,
    /// The full searches' mate guard at the root (`MctsConfig::mate_guard`; cheap searches go
    /// without: the screen costs milliseconds, and their moves are no policy targets).
    pub mate_guard: bool,
    /// Material adjudication (margin in centipawns, consecutive plies); `None` = off.
    pub adjudicate: Option<(i32, u32)>,
    pub threads: usize,
    pub seed: u64,
    pub rules_tag: String,
}

impl SelfPlayConfig {
    pub fn from_run(c: &crate::config::RunConfig, rules_tag: &str) -> Result<SelfPlayConfig, FieldError> {
        let opponent = if c.opponent_fraction > 0.0 {
            Some(
                check_engine(&c.opponent_engine)
                    .map_err(|e| FieldError { field: "opponent_engine", why: e.to_string() })?,
            )
        } else {
            None
        };
        Ok(SelfPlayConfig {
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
            opponent_fraction: c.opponent_fraction,
            opponent,
            opponent_random_plies: c.opponent_random_plies,
            opponent_policy_fraction: c.opponent_policy_fraction,
            selfplay_random_plies: c.selfplay_random_plies,
            pool_fraction: c.pool_fraction,
            royal_guard: c.royal_guard,
            mate_guard: c.mate_guard,
            adjudicate: (c.selfplay_adjudicate_cp > 0)
                .then_some((c.selfplay_adjudicate_cp, c.selfplay_adjudicate_plies)),
            threads: c.threads,
            seed: c.seed,
            rules_tag: rules_tag.to_string(),
        })
    }
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
    /// In an opponent game: the opponent's colour and engine.
    opponent: Option<(Color, AlphaBeta)>,
    /// The opponent's consecutive moves below its resignation score.
    opponent_low: u32,
    /// In a pool game: the colour the pool network plays.
    pool: Option<Color>,
    /// Material adjudication's count (when on).
    lead: Option<MaterialLead>,
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
    /// Games that ended before a round (see [`SelfPlay::new`]), returned with the next round's.
    pending: Vec<Finished>,
    next_game: u64,
    /// Training step of the network now playing (recorded in each game file).
    pub net_step: u64,
    /// Whether a pool network is there for new games to be pool games.
    pool_ready: bool,
}

impl SelfPlay {
    /// The full searches' mate guard on or off from the next move on (a run's
    /// `mate_guard_from_step`).
    pub fn set_mate_guard(&mut self, on: bool) {
        self.cfg.mate_guard = on;
    }

    /// The royal guard on or off for the games started from now on (a run's
    /// `royal_guard_from_step`; a game keeps the guard it started with).
    pub fn set_royal_guard(&mut self, on: bool) {
        self.cfg.royal_guard = on;
    }

    /// Start `concurrent_games` games numbered from `first_game`.
    pub fn new(cfg: SelfPlayConfig, table: Arc<MoveTable>, first_game: u64, net_step: u64) -> SelfPlay {
        let mut sp = SelfPlay {
            driver: Driver::new(cfg.threads),
            slots: Vec::new(),
            searches: Vec::new(),
            pending: Vec::new(),
            next_game: first_game,
            net_step,
            pool_ready: false,
            table,
            cfg,
        };
        for _ in 0..sp.cfg.concurrent_games {
            let slot = sp.new_game();
            sp.slots.push(slot);
        }
        let over = opponent_replies(&mut sp.slots, &sp.cfg);
        // A game the opponent's first move ended (possible only after random opening plies):
        // kept for the first round's results, and its slot gets the next game.
        for i in (0..sp.slots.len()).filter(|&i| over[i]) {
            let f = sp.replace(i);
            sp.pending.push(f);
            while opponent_moves(&mut sp.slots[i], &sp.cfg) {
                let f = sp.replace(i);
                sp.pending.push(f);
            }
        }
        sp.searches = sp.slots.iter().map(|s| sp.new_search(s)).collect();
        sp
    }

    /// The number the next game started will get.
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
            royal_guard: self.cfg.royal_guard,
            mate_guard: self.cfg.mate_guard,
            // The Gumbel root considers the top `gumbel_considered` moves (Gumbel noise
            // brings in others now and then): screening twice as many keeps the cost to a few
            // milliseconds a search.
            mate_guard_moves: 2 * self.cfg.gumbel_considered as u32,
            ..MctsConfig::new(self.cfg.visits)
        }
    }

    /// Start the next game in a new slot. When the opponent has Black it has not moved yet:
    /// [`opponent_replies`] plays its opening move with the other games' replies.
    fn new_game(&mut self) -> Slot {
        let index = self.next_game;
        self.next_game += 1;
        let seed = mix_seed(self.cfg.seed, index);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let resign_off = rng.gen_bool(self.cfg.resign_playout_fraction);
        let full = rng.gen_bool(self.cfg.full_search_fraction);
        // Drawn only when opponent games are on, so the games of a pure self-play run do not
        // change with this feature.
        let opponent = self.cfg.opponent.as_ref().filter(|_| rng.gen_bool(self.cfg.opponent_fraction)).map(|spec| {
            let mut ab = AlphaBeta::from_spec(spec).expect("opponent spec checked with the config");
            ab.set_seed(mix_seed(seed, 0x0990));
            (if index % 2 == 0 { Color::Black } else { Color::White }, ab)
        });
        // Drawn only with a pool network there (and pool games on), likewise.
        let pool = (opponent.is_none() && self.pool_ready && self.cfg.pool_fraction > 0.0)
            .then(|| rng.gen_bool(self.cfg.pool_fraction))
            .filter(|&b| b)
            .map(|_| if index % 2 == 0 { Color::Black } else { Color::White });
        let mut game = Game::new(self.table.clone(), Position::start());
        let mut plies = Vec::new();
        if opponent.is_some() && self.cfg.opponent_random_plies > 0 {
            (game, plies) = self.random_opening(seed);
        } else if opponent.is_none() && self.cfg.selfplay_random_plies > 0 {
            game = self.random_start(seed);
        }
        Slot {
            game,
            index,
            seed,
            rng,
            plies,
            resign_off,
            low: [0, 0],
            would_resign: None,
            net_step: self.net_step,
            full,
            opponent,
            opponent_low: 0,
            pool,
            lead: self.cfg.adjudicate.map(|(cp, n)| MaterialLead::new(cp, n, ValueTable::Material)),
        }
    }

    /// The opening of an opponent game: `opponent_random_plies` uniformly random legal plies
    /// (as the arena opens its games), recorded as value-only plies with no search value (0).
    /// Drawn from their own generator, so the game's other draws are those it would have had
    /// from the start position. A draw that ends the game (never seen in practice) is drawn
    /// again; after 100 such draws the game starts from the start position.
    fn random_opening(&self, seed: u64) -> (Game, Vec<PlyRecord>) {
        let game = play::arena::random_opening(
            &self.table,
            Position::start(),
            self.cfg.opponent_random_plies,
            |attempt| mix_seed(seed, 0x0BE4_0000 + attempt),
            |_| true,
        );
        let plies = game
            .moves()
            .map(|mv| PlyRecord {
                mv: notation::to_cecp(mv),
                value: 0.0,
                policy: Vec::new(),
                is_policy_target: false,
                surprise: None,
            })
            .collect();
        (game, plies)
    }

    /// The start of a pure self-play game with `selfplay_random_plies` on: 0 to that many
    /// uniformly random plies (the count drawn uniformly), from their own generators so the
    /// game's other draws are unchanged. The game starts at the position they reach (its
    /// `start_fen`): the random plies are neither policy nor value targets.
    fn random_start(&self, seed: u64) -> Game {
        let n = ChaCha8Rng::seed_from_u64(mix_seed(seed, 0x0BE4_5E1F)).gen_range(0..=self.cfg.selfplay_random_plies);
        let opened = play::arena::random_opening(
            &self.table,
            Position::start(),
            n,
            |attempt| mix_seed(seed, 0x0BE4_5E1F_0000 + attempt),
            |_| true,
        );
        Game::new(self.table.clone(), opened.position().clone())
    }

    /// A search for the newly started game in `slot` (after the opponent's opening move, if any).
    fn new_search(&self, slot: &Slot) -> Search {
        let mut mcts = self.mcts_config(mix_seed(slot.seed, 0x5EA4C4));
        mcts.visits = if slot.full { self.cfg.visits } else { self.cfg.cheap_visits };
        mcts.mate_guard &= slot.full;
        Search::new(mcts, &slot.game)
    }

    /// Play one move in every game (and the opponent's reply in opponent games); returns the
    /// games that finished (new ones take their slots). `pool` is the pool network (with
    /// `pool_fraction` > 0): its searches are batched apart; without one no new game is a pool
    /// game, and a pool game in progress goes on with `evaluator` on both sides.
    pub fn round<E: Evaluator + ?Sized>(
        &mut self,
        evaluator: &mut E,
        pool: Option<&mut dyn Evaluator>,
    ) -> (Vec<Finished>, RoundStats) {
        let mut stats = RoundStats::default();
        let before = self.driver.stats.evaluated;
        self.pool_ready = pool.is_some();
        let pooled: Vec<bool> = self.slots.iter().map(|s| s.pool == Some(s.game.side_to_move())).collect();
        match pool {
            Some(pool) if pooled.contains(&true) => {
                // Two batches: the newest network's searches, then the pool network's.
                let (mut ours, mut theirs) = (Vec::new(), Vec::new());
                for (s, &p) in std::mem::take(&mut self.searches).into_iter().zip(&pooled) {
                    if p {
                        theirs.push(s)
                    } else {
                        ours.push(s)
                    }
                }
                self.driver.run(&mut ours, evaluator);
                self.driver.run(&mut theirs, pool);
                let (mut ours, mut theirs) = (ours.into_iter(), theirs.into_iter());
                self.searches = pooled
                    .iter()
                    .map(|&p| if p { theirs.next() } else { ours.next() }.expect("one search a slot"))
                    .collect();
            }
            _ => self.driver.run(&mut self.searches, evaluator),
        }
        stats.evaluations = self.driver.stats.evaluated - before;
        let mut finished = std::mem::take(&mut self.pending);
        let mut fresh = vec![false; self.slots.len()];
        for i in 0..self.slots.len() {
            let r = self.searches[i].result();
            let full = self.slots[i].full;
            stats.positions += 1;
            stats.full += full as u64;
            stats.entropy_sum += entropy(&r);
            // The pool network's moves are value-only plies, as an opponent's are.
            if self.play(i, &r, full && !pooled[i]) {
                finished.push(self.replace(i));
                fresh[i] = true;
            }
        }
        // The opponent's moves: its replies, and its opening moves in the new games.
        let over = opponent_replies(&mut self.slots, &self.cfg);
        for i in (0..self.slots.len()).filter(|&i| over[i]) {
            finished.push(self.replace(i));
            fresh[i] = true;
            // Rare (a game the opponent ended, then a new one where it moves first): its opening
            // move is searched here, alone. After random opening plies that move could end the
            // game too, so this repeats until the network has a game to move in.
            while opponent_moves(&mut self.slots[i], &self.cfg) {
                finished.push(self.replace(i));
            }
        }
        for i in 0..self.slots.len() {
            if fresh[i] {
                self.searches[i] = self.new_search(&self.slots[i]);
            } else {
                let slot = &mut self.slots[i];
                slot.full = slot.rng.gen_bool(self.cfg.full_search_fraction);
                self.searches[i].set_visits(if slot.full { self.cfg.visits } else { self.cfg.cheap_visits });
                // The mate guard screens the full searches' roots: their moves are the policy
                // targets; a cheap search's move may still let a mate in (and the game shows it).
                self.searches[i].set_mate_guard(slot.full && self.cfg.mate_guard);
                if slot.pool.is_some() {
                    // The other network moves next: its own search, from scratch.
                    self.searches[i].restart(&slot.game);
                } else {
                    self.searches[i].set_game(&slot.game);
                }
            }
        }
        (finished, stats)
    }

    /// Start the next game in slot `i`; returns the game it held.
    fn replace(&mut self, i: usize) -> Finished {
        let slot = self.new_game();
        let old = std::mem::replace(&mut self.slots[i], slot);
        self.finish(old)
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
        let surprise = full.then(|| policy_surprise(r.root_moves.iter().map(|m| (m.policy_target, m.prior)))).flatten();
        let surprise = stored_surprise(surprise); // as the game file will hold it
        slot.plies.push(PlyRecord {
            mv: notation::to_cecp(mv),
            value: r.value,
            policy,
            is_policy_target: full,
            surprise,
        });
        // Resignation.
        let side = (us == Color::White) as usize;
        slot.low[side] = if r.value < cfg.resign_threshold { slot.low[side] + 1 } else { 0 };
        let resigns = cfg.resign_plies > 0 && slot.low[side] >= cfg.resign_plies && cfg.resign_threshold > -1.0;
        if resigns && slot.resign_off {
            slot.would_resign.get_or_insert(us);
        }
        play_or_draw(&mut slot.game, mv, "self-play game", slot.index);
        if resigns && !slot.resign_off && !slot.game.is_over() {
            slot.game.resign(us);
        }
        adjudicate(&mut slot.game, &mut slot.lead);
        cap_plies(&mut slot.game, cfg.max_plies);
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
            opponent: s.opponent.map(|(c, _)| c).or(s.pool),
            plies: s.plies,
        };
        Finished { index: s.index, file }
    }
}

/// The opponent's move in every opponent game where it is to move, searched in parallel (on the
/// process's worker pool: each slot has its own engine, so the results do not depend on the
/// thread count). Returns, per slot, whether its game is over.
fn opponent_replies(slots: &mut [Slot], cfg: &SelfPlayConfig) -> Vec<bool> {
    use rayon::prelude::*;
    slots.par_iter_mut().map(|slot| opponent_moves(slot, cfg)).collect()
}

/// In an opponent game with the opponent to move: its move (or its resignation), recorded as a
/// value-only ply, or in a share `opponent_policy_fraction` of them as a one-hot policy target
/// too. Returns whether the game is over.
fn opponent_moves(slot: &mut Slot, cfg: &SelfPlayConfig) -> bool {
    let Some((colour, ab)) = slot.opponent.as_mut() else { return false };
    if slot.game.is_over() || slot.game.side_to_move() != *colour {
        return slot.game.is_over();
    }
    let r = ab.search(&slot.game, &mut |_| {});
    if resigns(&mut slot.opponent_low, r.score) {
        slot.game.resign(*colour);
        return true;
    }
    let value = score_value(r.score);
    // Drawn from (game seed, ply), not the slot's generator, so the game's other draws do not
    // depend on this share.
    let ply = slot.game.ply_count() as u64;
    let target = cfg.opponent_policy_fraction > 0.0
        && ((mix_seed(slot.seed ^ 0x0990_901C, ply) >> 11) as f64 / (1u64 << 53) as f64) < cfg.opponent_policy_fraction;
    let policy = if target {
        nn::policy::move_index(r.best, *colour).map(|i| vec![(i as u32, u16::MAX)]).unwrap_or_default()
    } else {
        Vec::new()
    };
    let is_policy_target = !policy.is_empty();
    slot.plies.push(PlyRecord { mv: notation::to_cecp(r.best), value, policy, is_policy_target, surprise: None });
    play_or_draw(&mut slot.game, r.best, "self-play game (opponent's move)", slot.index);
    adjudicate(&mut slot.game, &mut slot.lead);
    cap_plies(&mut slot.game, cfg.max_plies);
    slot.game.is_over()
}

/// Entropy (nats) of the network's priors at the root.
fn entropy(r: &SearchResult) -> f64 {
    let total: f64 = r.root_moves.iter().map(|m| m.prior.max(0.0) as f64).sum();
    if total <= 0.0 {
        return 0.0;
    }
    r.root_moves.iter().map(|m| m.prior.max(0.0) as f64 / total).filter(|&p| p > 0.0).map(|p| -p * p.ln()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use search::mcts::UniformEvaluator;

    fn cfg(threads: usize) -> SelfPlayConfig {
        SelfPlayConfig {
            concurrent_games: 3,
            visits: 8,
            cheap_visits: 4,
            gumbel_considered: 4,
            full_search_fraction: 0.5,
            temperature_plies: 4,
            resign_threshold: -1.0,
            resign_plies: 0,
            resign_playout_fraction: 0.0,
            max_plies: 24,
            opponent_fraction: 1.0,
            opponent: Some(check_engine("alphabeta:depth=1,tt=1").unwrap()),
            opponent_random_plies: 0,
            opponent_policy_fraction: 0.0,
            selfplay_random_plies: 0,
            pool_fraction: 0.0,
            royal_guard: false,
            mate_guard: false,
            adjudicate: None,
            threads,
            seed: 5,
            rules_tag: "standard".into(),
        }
    }

    fn games(threads: usize, n: usize) -> Vec<Finished> {
        games_with(cfg(threads), n)
    }

    fn games_with(cfg: SelfPlayConfig, n: usize) -> Vec<Finished> {
        let table = Arc::new(MoveTable::new(&engine::Rules::standard()));
        let mut sp = SelfPlay::new(cfg, table, 0, 0);
        let mut done = Vec::new();
        while done.len() < n {
            done.extend(sp.round(&mut UniformEvaluator, None).0);
        }
        done.sort_by_key(|f| f.index);
        done.truncate(n);
        done
    }

    /// Opponent games: the opponent has Black in even-numbered games and White in odd ones, its
    /// plies are value-only (the network's full searches still give policy targets), the games
    /// replay, and the same seed gives the same games whatever the thread count.
    #[test]
    fn opponent_games_record_value_only_opponent_plies_and_repeat() {
        let table = Arc::new(MoveTable::new(&engine::Rules::standard()));
        let a = games(1, 4);
        let mut opponent_plies = 0;
        for f in &a {
            let g = &f.file;
            assert!(!g.plies.is_empty() && g.plies.len() <= 24, "game {}: {} plies", f.index, g.plies.len());
            // Ply i is Black's when i is even (Black moves first).
            let opponent_parity = (f.index % 2) as usize;
            for (i, p) in g.plies.iter().enumerate() {
                if i % 2 == opponent_parity {
                    assert!(
                        !p.is_policy_target && p.policy.is_empty(),
                        "game {} ply {i}: opponent ply with a policy",
                        f.index
                    );
                    opponent_plies += 1;
                }
            }
            assert!(
                g.plies.iter().enumerate().any(|(i, p)| i % 2 != opponent_parity && p.is_policy_target),
                "game {}: the network's full searches are policy targets",
                f.index
            );
            assert_eq!(g.samples(&table).unwrap().len(), g.plies.len(), "game {} replays", f.index);
        }
        assert!(opponent_plies > 0);
        let b = games(2, 4);
        assert_eq!(
            a.iter().map(|f| (f.index, &f.file)).collect::<Vec<_>>(),
            b.iter().map(|f| (f.index, &f.file)).collect::<Vec<_>>()
        );
    }

    /// Counts the positions it evaluates (uniform priors, value 0).
    #[derive(Default)]
    struct Counting(u64);

    impl Evaluator for Counting {
        fn evaluate(&mut self, requests: &[search::mcts::EvalRequest<'_>], out: &mut [search::mcts::Evaluation]) {
            self.0 += requests.len() as u64;
            UniformEvaluator.evaluate(requests, out)
        }
    }

    /// Pool games: only while a pool network is given (the first games, started before one
    /// was, and every game of a round without one are plain self-play); then the pool network
    /// has Black in even-numbered games and White in odd ones, its searches go to its own
    /// evaluator, its plies are value-only, the newest network's full searches stay policy
    /// targets, the games replay, and the same seed gives the same games whatever the thread
    /// count.
    #[test]
    fn pool_games_search_the_pool_network_apart_and_record_its_plies_value_only() {
        let table = Arc::new(MoveTable::new(&engine::Rules::standard()));
        let with = |threads| SelfPlayConfig {
            opponent_fraction: 0.0,
            opponent: None,
            pool_fraction: 1.0,
            concurrent_games: 4,
            ..cfg(threads)
        };
        let play = |threads, n: usize, pool: bool| {
            let mut sp = SelfPlay::new(with(threads), table.clone(), 0, 0);
            let (mut ours, mut theirs) = (Counting::default(), Counting::default());
            let mut done = Vec::new();
            while done.len() < n {
                let p = pool.then_some(&mut theirs as &mut dyn Evaluator);
                done.extend(sp.round(&mut ours, p).0);
            }
            done.sort_by_key(|f: &Finished| f.index);
            done.truncate(n);
            (done, ours.0, theirs.0)
        };
        let (plain, _, _) = play(1, 8, false);
        assert!(plain.iter().all(|f| f.file.opponent.is_none()), "no pool network, no pool games");
        let (a, ours, theirs) = play(1, 10, true);
        assert!(theirs > 0 && ours > 0, "both networks searched: {ours} and {theirs} positions");
        let mut pool_plies = 0;
        for f in &a {
            let g = &f.file;
            if f.index < 4 {
                assert_eq!(g.opponent, None, "game {} started before the pool network was given", f.index);
                continue;
            }
            let colour = if f.index % 2 == 0 { Color::Black } else { Color::White };
            assert_eq!(g.opponent, Some(colour), "game {}", f.index);
            let parity = (f.index % 2) as usize;
            for (i, p) in g.plies.iter().enumerate() {
                if i % 2 == parity {
                    assert!(!p.is_policy_target && p.policy.is_empty(), "game {} ply {i}: the pool's ply", f.index);
                    pool_plies += 1;
                }
            }
            assert_eq!(g.samples(&table).unwrap().len(), g.plies.len(), "game {} replays", f.index);
        }
        assert!(pool_plies > 0);
        assert!(
            a.iter().filter(|f| f.index >= 4).any(|f| f
                .file
                .plies
                .iter()
                .enumerate()
                .any(|(i, p)| i % 2 != (f.index % 2) as usize && p.is_policy_target)),
            "the newest network's full searches in pool games are policy targets"
        );
        let (b, _, _) = play(2, 10, true);
        assert_eq!(
            a.iter().map(|f| (f.index, &f.file)).collect::<Vec<_>>(),
            b.iter().map(|f| (f.index, &f.file)).collect::<Vec<_>>()
        );
    }

    /// The opponent's first move is played before the network's first search, so a game where
    /// the opponent has Black starts with the network to move (White).
    #[test]
    fn the_opponent_opens_with_black() {
        let table = Arc::new(MoveTable::new(&engine::Rules::standard()));
        let sp = SelfPlay::new(cfg(1), table, 0, 0);
        assert_eq!(sp.slots[0].game.ply_count(), 1, "game 0: the opponent (Black) has moved");
        assert_eq!(sp.slots[0].game.side_to_move(), Color::White);
        assert_eq!(sp.slots[1].game.ply_count(), 0, "game 1: the network (Black) moves first");
    }

    /// `opponent_random_plies`: each opponent game opens with that many value-only plies with
    /// no search value, different from game to game, after which the opponent and the network
    /// alternate as usual (here 3 plies: White moves next, so the opponent moves first in the
    /// odd-numbered games); the games replay and repeat whatever the thread count.
    #[test]
    fn opponent_games_open_with_random_plies() {
        let table = Arc::new(MoveTable::new(&engine::Rules::standard()));
        let with = |threads| SelfPlayConfig { opponent_random_plies: 3, ..cfg(threads) };
        let a = games_with(with(1), 4);
        let mut openings = std::collections::HashSet::new();
        for f in &a {
            let g = &f.file;
            assert!(g.plies.len() > 3, "game {}: {} plies", f.index, g.plies.len());
            for p in &g.plies[..3] {
                assert!(!p.is_policy_target && p.policy.is_empty() && p.value == 0.0, "game {}: {p:?}", f.index);
            }
            openings.insert(g.plies[..3].iter().map(|p| p.mv.clone()).collect::<Vec<_>>());
            let opponent_parity = (f.index % 2) as usize;
            for (i, p) in g.plies.iter().enumerate().skip(3) {
                if i % 2 == opponent_parity {
                    assert!(!p.is_policy_target, "game {} ply {i}: opponent ply with a policy", f.index);
                }
            }
            assert!(
                g.plies.iter().enumerate().skip(3).any(|(i, p)| i % 2 != opponent_parity && p.is_policy_target),
                "game {}: the network's full searches are policy targets",
                f.index
            );
            assert_eq!(g.samples(&table).unwrap().len(), g.plies.len(), "game {} replays", f.index);
        }
        assert_eq!(openings.len(), 4, "each game has its own opening");
        let b = games_with(with(2), 4);
        assert_eq!(
            a.iter().map(|f| (f.index, &f.file)).collect::<Vec<_>>(),
            b.iter().map(|f| (f.index, &f.file)).collect::<Vec<_>>()
        );
        // Pure self-play games (no opponent) keep the start position.
        let sp = SelfPlay::new(SelfPlayConfig { opponent_fraction: 0.0, opponent: None, ..with(1) }, table, 0, 0);
        assert!(sp.slots.iter().all(|s| s.game.ply_count() == 0), "no random plies without an opponent");
    }

    /// `selfplay_random_plies`: pure self-play games start from the position 0 to N uniformly
    /// random plies reach (recorded as the game's start, the plies themselves not recorded),
    /// with various counts and positions; every recorded ply is the network's own search, the
    /// games replay and repeat whatever the thread count; off, every game starts at the start.
    #[test]
    fn self_play_games_open_with_unrecorded_random_plies() {
        let table = Arc::new(MoveTable::new(&engine::Rules::standard()));
        let pure = |n, threads| SelfPlayConfig {
            opponent_fraction: 0.0,
            opponent: None,
            selfplay_random_plies: n,
            max_plies: 8,
            ..cfg(threads)
        };
        let a = games_with(pure(6, 1), 12);
        let mut starts = std::collections::HashSet::new();
        let mut counts = std::collections::HashSet::new();
        let (mut surprises, mut targets) = (0, 0);
        for f in &a {
            let g = &f.file;
            targets += g.plies.iter().filter(|p| p.is_policy_target).count();
            counts.insert(g.start_fen == Position::start().to_fen());
            starts.insert(g.start_fen.clone());
            // Every recorded ply is one of the network's searches: the full ones policy targets
            // with their policy, the cheap ones value-only.
            assert!(g.plies.iter().all(|p| p.is_policy_target == !p.policy.is_empty()), "game {}", f.index);
            // Each full search records its policy surprise (a finite KL divergence, kept as its
            // 7-bit code stores it).
            // (A search that took the last royal without asking the network has no prior.)
            for p in &g.plies {
                assert!(p.surprise.is_none() || p.is_policy_target, "game {}: {p:?}", f.index);
                surprises += p.surprise.is_some() as usize;
                assert!(p.surprise.is_none_or(|k| k.is_finite() && k >= 0.0), "game {}: {p:?}", f.index);
            }
            assert_eq!(&GameFile::from_bytes(&g.to_bytes()).unwrap(), g, "game {} reads back as played", f.index);
            assert_eq!(g.samples(&table).unwrap().len(), g.plies.len(), "game {} replays", f.index);
            assert_eq!(g.opponent, None);
        }
        assert!(starts.len() >= 6, "openings differ from game to game: {} of 12", starts.len());
        assert!(targets > 0 && surprises * 10 >= targets * 9, "{surprises} surprises for {targets} policy targets");
        assert_eq!(counts.len(), 2, "some games from the start position, some after random plies");
        let b = games_with(pure(6, 2), 12);
        assert_eq!(
            a.iter().map(|f| (f.index, &f.file)).collect::<Vec<_>>(),
            b.iter().map(|f| (f.index, &f.file)).collect::<Vec<_>>()
        );
        let off = games_with(pure(0, 1), 4);
        assert!(off.iter().all(|f| f.file.start_fen == Position::start().to_fen()));
    }

    /// `selfplay_adjudicate_cp`: a game ends as a win for the side that has been ahead by the
    /// margin after each of the last `plies` plies, and not before; checked by replaying every
    /// game's material. Off, the same games run on.
    #[test]
    fn material_adjudication_ends_games_for_the_side_ahead() {
        use engine::{Outcome, WinReason};
        let table = Arc::new(MoveTable::new(&engine::Rules::standard()));
        let (margin, plies) = (300, 2usize);
        let with = |adjudicate| SelfPlayConfig { adjudicate, max_plies: 60, ..cfg(1) };
        let games = games_with(with(Some((margin, plies as u32))), 6);
        let mut adjudicated = 0;
        for f in &games {
            let g = &f.file;
            let mut game = Game::new(table.clone(), Position::from_fen(&g.start_fen).unwrap());
            let mut leads = Vec::new();
            for p in &g.plies {
                let m = notation::parse_cecp_in(game.position(), &game.legal_moves(), &p.mv).unwrap();
                game.play(m).unwrap();
                let b = search::values::material_balance(game.position());
                leads.push(if b >= margin {
                    Some(Color::Black)
                } else if b <= -margin {
                    Some(Color::White)
                } else {
                    None
                });
            }
            let decided_at =
                |i: usize| i + 1 >= plies && leads[i + 1 - plies..=i].iter().all(|l| l.is_some() && *l == leads[i]);
            let n = leads.len();
            assert!((0..n.saturating_sub(1)).all(|i| !decided_at(i)), "game {}: decided before its end", f.index);
            if let Outcome::Win { winner, reason: WinReason::Adjudication } = g.outcome {
                adjudicated += 1;
                assert!(decided_at(n - 1), "game {}: adjudicated without the lead", f.index);
                assert_eq!(leads[n - 1], Some(winner), "game {}", f.index);
            } else {
                assert!(!decided_at(n - 1) || game.is_over(), "game {}: the lead held and the game ran on", f.index);
            }
        }
        assert!(adjudicated > 0, "the opponent takes material: some games are adjudicated");
        let off = games_with(with(None), 6);
        assert!(off.iter().all(|f| !matches!(f.file.outcome, Outcome::Win { reason: WinReason::Adjudication, .. })));
        assert!(
            off.iter().map(|f| f.file.plies.len()).sum::<usize>()
                > games.iter().map(|f| f.file.plies.len()).sum::<usize>()
        );
    }

    /// `opponent_policy_fraction`: at 1 every opponent ply is a one-hot policy target on the
    /// move played; at 0.5 some are and some are not, and the moves played are those of the
    /// value-only games (the share draws from its own generator).
    #[test]
    fn opponent_moves_become_policy_targets_in_their_share() {
        let table = Arc::new(MoveTable::new(&engine::Rules::standard()));
        let with = |fraction| SelfPlayConfig { opponent_policy_fraction: fraction, ..cfg(1) };
        let plain = games_with(with(0.0), 4);
        for fraction in [1.0, 0.5] {
            let a = games_with(with(fraction), 4);
            let (mut targets, mut value_only) = (0, 0);
            for (f, p) in a.iter().zip(&plain) {
                let moves = |g: &GameFile| g.plies.iter().map(|p| p.mv.clone()).collect::<Vec<_>>();
                assert_eq!(moves(&f.file), moves(&p.file), "game {}: the same moves", f.index);
                let mut game = Game::new(table.clone(), Position::start());
                for (i, ply) in f.file.plies.iter().enumerate() {
                    let us = game.side_to_move();
                    let mv = notation::parse_cecp(game.position(), &table, &ply.mv).expect("a recorded move parses");
                    game.play(mv).expect("a recorded move plays");
                    if i % 2 != (f.index % 2) as usize {
                        continue; // the network's ply
                    }
                    if ply.is_policy_target {
                        let idx = nn::policy::move_index(mv, us).unwrap() as u32;
                        assert_eq!(ply.policy, vec![(idx, u16::MAX)], "game {} ply {i}", f.index);
                        targets += 1;
                    } else {
                        assert!(ply.policy.is_empty());
                        value_only += 1;
                    }
                }
            }
            assert!(targets > 0, "fraction {fraction}: some opponent plies are policy targets");
            if fraction == 1.0 {
                assert_eq!(value_only, 0, "fraction 1: every opponent ply is a policy target");
            } else {
                assert!(value_only > 0, "fraction {fraction}: some opponent plies stay value-only");
            }
        }
    }
}
