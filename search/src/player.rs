//! Engines that choose moves, behind one trait, and the search limits they obey.
//!
//! Every engine (random mover, alpha-beta, later MCTS with a network) implements [`Player`];
//! the arena, `go`, `play` and the CECP mode drive them through it. An engine *spec* such as
//! `alphabeta:depth=3` or `random` names one engine and its limits ([`EngineSpec`]).

use crate::spec::MAX_MOVE_TIME;
use engine::Game;
use engine::Move;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::time::Duration;

/// How long an engine may think. Unset fields are unlimited; with nothing set the engine uses
/// its own default.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Limits {
    /// Maximum depth in plies (alpha-beta) .
    pub depth: Option<u32>,
    /// Maximum nodes (alpha-beta) or visits (MCTS).
    pub nodes: Option<u64>,
    /// Fixed time for this move.
    pub movetime: Option<Duration>,
    /// Clock: time left for the side to move and increment per move (CECP `time`/`level`).
    pub clock: Option<Clock>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clock {
    pub remaining: Duration,
    pub increment: Duration,
    /// Moves until the next time control (0 = sudden death / incremental).
    pub moves_to_go: u32,
}

impl Limits {
    /// The time to spend on this move, if any limit is time-based, with a safety margin; never
    /// more than [`MAX_MOVE_TIME`] (a deadline that far ahead still fits every clock), whatever
    /// the limits say.
    pub fn time_budget(&self) -> Option<Duration> {
        let max = MAX_MOVE_TIME.as_secs_f64();
        let mut best: Option<Duration> =
            self.movetime.map(|t| t.min(MAX_MOVE_TIME).mul_f64(0.95).saturating_sub(Duration::from_millis(5)));
        if let Some(c) = self.clock {
            let moves = if c.moves_to_go > 0 { c.moves_to_go as f64 } else { 40.0 };
            let t = c.remaining.as_secs_f64() / moves + c.increment.as_secs_f64() * 0.8;
            let t = t.min(c.remaining.as_secs_f64() * 0.5);
            let d = Duration::from_secs_f64(if t.is_nan() { 0.0 } else { t.clamp(0.0, max) });
            best = Some(best.map_or(d, |b| b.min(d)));
        }
        best
    }
}

/// One line of thinking output: what the search believes so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Thinking {
    /// Iteration depth (alpha-beta) or visits (MCTS).
    pub depth: u32,
    /// Score in centi-pawns from the side to move's point of view (CECP convention).
    pub score_cp: i32,
    /// Win/draw/loss probabilities, when the engine has them (MCTS).
    pub wdl: Option<[f32; 3]>,
    pub nodes: u64,
    pub time: Duration,
    pub pv: Vec<Move>,
}

/// An engine that plays moves.
pub trait Player: Send {
    /// Name for game records and reports (spec form, e.g. `alphabeta:depth=3`).
    fn name(&self) -> String;
    /// Choose a move for the side to move in `game`, which is not over. Must return one of
    /// `game.legal_moves()`. Thinking lines are reported through `info` as the search goes.
    fn choose(&mut self, game: &Game, info: &mut dyn FnMut(&Thinking)) -> Move;
    /// Replace the limits the engine was created with (CECP `sd`, `st`, `level`, `time`).
    fn set_limits(&mut self, _limits: Limits) {}
    /// Forget anything learnt from the previous game (transposition tables, trees).
    fn new_game(&mut self) {}
    /// MCTS players: the whole result of the last search (visits, value, root moves with their
    /// priors and policy targets), which `go` prints after the move. Others have none.
    fn last_search(&self) -> Option<&crate::report::SearchResult> {
        None
    }
}

/// A uniformly random mover, seeded for reproducible games.
pub struct RandomPlayer {
    rng: ChaCha8Rng,
}

impl RandomPlayer {
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer { rng: ChaCha8Rng::seed_from_u64(seed) }
    }
}

impl Player for RandomPlayer {
    fn name(&self) -> String {
        "random".into()
    }
    fn choose(&mut self, game: &Game, _info: &mut dyn FnMut(&Thinking)) -> Move {
        *game.legal_moves().choose(&mut self.rng).expect("choose called on a finished game")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_budgets_of_any_limits_fit_a_deadline() {
        let huge = Duration::MAX;
        let l = Limits { movetime: Some(huge), ..Limits::default() };
        assert!(l.time_budget().unwrap() <= MAX_MOVE_TIME);
        let clock = Clock { remaining: huge, increment: huge, moves_to_go: 0 };
        let l = Limits { clock: Some(clock), ..Limits::default() };
        assert!(l.time_budget().unwrap() <= MAX_MOVE_TIME);
        assert!(std::time::Instant::now().checked_add(l.time_budget().unwrap()).is_some());
        let l = Limits { movetime: Some(Duration::from_millis(1)), ..Limits::default() };
        assert_eq!(l.time_budget(), Some(Duration::ZERO));
    }
}
