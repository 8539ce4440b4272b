//! Engines that choose moves, behind one trait, and the search limits they obey.
//!
//! Every engine (random mover, alpha-beta, later MCTS with a network) implements [`Player`];
//! the arena, `go`, `play` and the CECP mode drive them through it. An engine *spec* such as
//! `alphabeta:depth=3` or `random` names one engine and its limits ([`EngineSpec`]).

use crate::game::Game;
use crate::moves::Move;
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
    /// The time to spend on this move, if any limit is time-based, with a safety margin.
    pub fn time_budget(&self) -> Option<Duration> {
        let mut best: Option<Duration> = self.movetime.map(|t| t.mul_f64(0.95).saturating_sub(Duration::from_millis(5)));
        if let Some(c) = self.clock {
            let moves = if c.moves_to_go > 0 { c.moves_to_go as f64 } else { 40.0 };
            let t = c.remaining.as_secs_f64() / moves + c.increment.as_secs_f64() * 0.8;
            let t = t.min(c.remaining.as_secs_f64() * 0.5);
            let d = Duration::from_secs_f64(t.max(0.0));
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

/// A parsed engine spec: `kind[:key=value,key=value...]`, e.g. `alphabeta:depth=3`,
/// `alphabeta:time=1s`, `mcts:checkpoint=PATH,visits=800`, `random`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    pub kind: String,
    pub params: Vec<(String, String)>,
}

/// A bad engine spec.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad engine spec '{spec}': {why}")]
pub struct SpecError {
    pub spec: String,
    pub why: String,
}

impl EngineSpec {
    pub fn parse(spec: &str) -> Result<EngineSpec, SpecError> {
        let err = |why: &str| SpecError { spec: spec.to_string(), why: why.to_string() };
        let s = spec.trim();
        let (kind, rest) = match s.split_once(':') {
            Some((k, r)) => (k, Some(r)),
            None => (s, None),
        };
        if kind.is_empty() || !kind.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
            return Err(err("expected ENGINE[:key=value,...], e.g. 'alphabeta:depth=3' or 'random'"));
        }
        let mut params = Vec::new();
        if let Some(rest) = rest {
            for kv in rest.split(',') {
                let (k, v) = kv
                    .split_once('=')
                    .ok_or_else(|| err(&format!("parameter '{kv}' is not key=value")))?;
                if k.is_empty() || v.is_empty() {
                    return Err(err(&format!("parameter '{kv}' needs a key and a value")));
                }
                if params.iter().any(|(pk, _): &(String, String)| pk == k) {
                    return Err(err(&format!("parameter '{k}' given twice")));
                }
                params.push((k.to_string(), v.to_string()));
            }
        }
        Ok(EngineSpec { kind: kind.to_string(), params })
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.params.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Reject parameters outside `allowed`.
    pub fn check_keys(&self, allowed: &[&str]) -> Result<(), SpecError> {
        for (k, _) in &self.params {
            if !allowed.contains(&k.as_str()) {
                return Err(self.error(&format!("unknown parameter '{k}' for '{}' (expected {})", self.kind, allowed.join(", "))));
            }
        }
        Ok(())
    }

    pub fn error(&self, why: &str) -> SpecError {
        SpecError { spec: self.to_string(), why: why.to_string() }
    }

    /// A parameter parsed as a number.
    pub fn number<T: std::str::FromStr>(&self, key: &str) -> Result<Option<T>, SpecError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => v.parse().map(Some).map_err(|_| self.error(&format!("'{key}={v}' is not a valid number"))),
        }
    }

    /// A duration parameter: `1s`, `500ms`, `0.5s`, `2m`, or plain seconds.
    pub fn duration(&self, key: &str) -> Result<Option<Duration>, SpecError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => parse_duration(v)
                .map(Some)
                .ok_or_else(|| self.error(&format!("'{key}={v}' is not a duration (e.g. 1s, 500ms, 2m)"))),
        }
    }
}

impl std::fmt::Display for EngineSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.kind)?;
        for (i, (k, v)) in self.params.iter().enumerate() {
            write!(f, "{}{k}={v}", if i == 0 { ':' } else { ',' })?;
        }
        Ok(())
    }
}

/// Parse `1s`, `500ms`, `0.5s`, `2m` or plain seconds.
pub fn parse_duration(v: &str) -> Option<Duration> {
    let (num, scale) = if let Some(n) = v.strip_suffix("ms") {
        (n, 0.001)
    } else if let Some(n) = v.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = v.strip_suffix('m') {
        (n, 60.0)
    } else {
        (v, 1.0)
    };
    let x: f64 = num.parse().ok()?;
    (x.is_finite() && x >= 0.0).then(|| Duration::from_secs_f64(x * scale))
}

/// Build an engine that needs no network from its spec: `random[:seed=N]` or
/// `alphabeta:...` (see [`crate::alphabeta`]). Other kinds (`mcts`) are built by the crates
/// that own them; this returns an error naming the kind for them.
pub fn engine_player(spec: &EngineSpec, rules: &crate::rules::Rules) -> Result<Box<dyn Player>, SpecError> {
    let _ = rules;
    match spec.kind.as_str() {
        "random" => {
            spec.check_keys(&["seed"])?;
            Ok(Box::new(RandomPlayer::new(spec.number("seed")?.unwrap_or(0))))
        }
        "alphabeta" => Ok(Box::new(crate::alphabeta::AlphaBeta::from_spec(spec)?)),
        other => Err(spec.error(&format!("unknown engine '{other}' (expected random, alphabeta or mcts)"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engine_specs_parse_and_reject_bad_input() {
        let s = EngineSpec::parse("alphabeta:depth=3,time=1s").unwrap();
        assert_eq!(s.kind, "alphabeta");
        assert_eq!(s.number::<u32>("depth").unwrap(), Some(3));
        assert_eq!(s.duration("time").unwrap(), Some(Duration::from_secs(1)));
        assert_eq!(s.to_string(), "alphabeta:depth=3,time=1s");
        assert_eq!(EngineSpec::parse("random").unwrap().params.len(), 0);
        for bad in ["", ":depth=3", "alphabeta:depth", "alphabeta:depth=3,depth=4", "a b"] {
            assert!(EngineSpec::parse(bad).is_err(), "{bad}");
        }
        assert!(s.check_keys(&["depth"]).is_err());
        let s = EngineSpec::parse("alphabeta:depth=x").unwrap();
        assert!(s.number::<u32>("depth").unwrap_err().to_string().contains("not a valid number"));
        assert_eq!(parse_duration("500ms"), Some(Duration::from_millis(500)));
        assert_eq!(parse_duration("-1s"), None);
    }
}
