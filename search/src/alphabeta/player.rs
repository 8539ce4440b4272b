//! The alpha-beta engine as a [`Player`]: limits, seed, and the searcher it keeps from move
//! to move.

use super::{SearchConfig, SearchResult, Searcher, DEFAULT_TT_MB, MAX_DEPTH};
use crate::{EngineSpec, Limits, Player, SpecError, Thinking};
use engine::Game;
use engine::{Move, MoveTable, Rules};
use std::sync::Arc;

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
        let t = Arc::new(MoveTable::new(&Rules::standard()));
        AlphaBeta { name: "alphabeta".into(), limits, seed, searcher: Searcher::new(t, cfg) }
    }

    /// Build from an engine spec: `alphabeta[:depth=N,nodes=N,time=DUR,tt=MB,seed=N]`.
    pub fn from_spec(spec: &EngineSpec) -> Result<AlphaBeta, SpecError> {
        spec.check_keys(&["depth", "nodes", "time", "tt", "seed"])?;
        let depth = spec.number_in::<u32>("depth", 1, MAX_DEPTH)?;
        let nodes = spec.number_in::<u64>("nodes", 1, u64::MAX)?;
        let limits = Limits { depth, nodes, movetime: spec.duration("time")?, clock: None };
        let tt_mb = spec.number_in::<usize>("tt", 0, super::MAX_TT_MB)?.unwrap_or(DEFAULT_TT_MB);
        let cfg = SearchConfig { tt_mb, ..SearchConfig::default() };
        let mut ab = AlphaBeta::new(limits, cfg, spec.number("seed")?.unwrap_or(0));
        ab.name = spec.to_string();
        Ok(ab)
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Change the seed (the move-ordering tie-breaks; teacher games of a training run use one
    /// seed per game).
    pub fn set_seed(&mut self, seed: u64) {
        self.seed = seed;
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
