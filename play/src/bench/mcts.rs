//! Search speed with the real network (`tenjiku bench mcts`): simulations per second for one
//! game and for many concurrent games through the batched driver, and the share of the time
//! spent outside the network calls (tree work: selection, move generation, expansion, backup,
//! encoding is *inside*, as part of the evaluator).
//!
//! Each setting runs every search to its budget once to warm the arenas and the network up
//! (trees reused move after move are warm), then is timed after `Search::restart`.

use std::sync::Arc;
use std::time::Instant;

use engine::Game;
use engine::{MoveTable, Position, Rules};
use nn::backend::Device;
use nn::evaluator::NetEvaluator;
use nn::network::{NetConfig, Network};
use search::mcts::{Driver, MctsConfig, Search};

/// One benchmark setting.
#[derive(Clone, Debug)]
pub struct MctsBench {
    /// Concurrent games (searches) stepped together.
    pub games: usize,
    /// Visits per search.
    pub visits: u32,
    /// Gumbel considered actions (`None`: PUCT).
    pub gumbel: Option<usize>,
    /// Leaves gathered per tree per network call (PUCT with virtual loss).
    pub batch_per_tree: usize,
    /// Driver threads.
    pub threads: usize,
}

/// What one setting measured.
#[derive(Clone, Debug)]
pub struct MctsBenchRow {
    pub setting: MctsBench,
    pub simulations: u64,
    pub secs: f64,
    pub mean_batch: f64,
    /// Fraction of the wall time outside `Evaluator::evaluate` (which includes encoding).
    pub outside: f64,
    /// Network positions per second inside the evaluator.
    pub net_positions_per_s: f64,
}

impl MctsBenchRow {
    pub fn simulations_per_s(&self) -> f64 {
        self.simulations as f64 / self.secs
    }
}

/// Run one setting from `start` with a random network of `cfg` on `device`.
pub fn mcts_speed(cfg: &NetConfig, device: &Device, start: &Position, b: &MctsBench) -> MctsBenchRow {
    let table = Arc::new(MoveTable::new(&Rules::standard()));
    let game = Game::new(table, *start);
    let mut eval = NetEvaluator::new(Network::seeded(cfg, 1, device), device);
    let mcts =
        MctsConfig { gumbel: b.gumbel, batch_per_tree: b.batch_per_tree, noise: true, ..MctsConfig::new(b.visits) };
    let mut searches: Vec<Search> =
        (0..b.games).map(|i| Search::new(MctsConfig { seed: i as u64, ..mcts.clone() }, &game)).collect();
    let mut driver = Driver::new(b.threads);
    driver.run(&mut searches, &mut eval); // warm-up
    for s in &mut searches {
        s.restart(&game);
    }
    driver.stats = Default::default();
    let t = Instant::now();
    driver.run(&mut searches, &mut eval);
    let secs = t.elapsed().as_secs_f64();
    let st = &driver.stats;
    MctsBenchRow {
        setting: b.clone(),
        simulations: searches.iter().map(|s| s.simulations() as u64).sum(),
        secs,
        mean_batch: st.mean_batch(),
        outside: st.outside_fraction(),
        net_positions_per_s: st.evaluated as f64 / st.eval_time.as_secs_f64().max(1e-9),
    }
}
