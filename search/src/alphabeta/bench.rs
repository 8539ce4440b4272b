//! The alpha-beta speed benchmark (`search/examples/alphabeta_bench.rs`): each benchmark
//! position searched by a fresh engine.

use super::{AlphaBeta, SearchConfig};
use crate::Limits;
use engine::Game;
use engine::{Move, MoveTable, Position, Rules};
use std::sync::Arc;

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

/// Search each benchmark position (`engine::bench::BENCH_POSITIONS`) with `limits` and a fresh
/// engine of configuration `cfg`; nodes include quiescence nodes.
pub fn bench(limits: Limits, cfg: SearchConfig) -> Vec<BenchRow> {
    let t = Arc::new(MoveTable::new(&Rules::standard()));
    engine::perft::bench_positions()
        .into_iter()
        .map(|(name, fen)| {
            let pos = Position::from_fen(&fen).expect("bench FEN parses");
            let game = Game::new(t.clone(), pos);
            let mut ab = AlphaBeta::new(limits, cfg, 0);
            let r = ab.search(&game, &mut |_| {});
            BenchRow { name, depth: r.depth, nodes: r.nodes, secs: r.time.as_secs_f64(), score: r.score, best: r.best }
        })
        .collect()
}
