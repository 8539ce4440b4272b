//! MCTS driver benchmark (numbers for the `## MCTS` section of BENCHMARKS.md).
//!
//! A fake network costs a fixed 2.5 ms per 64 positions (spinning, proportional to the batch;
//! its priors and values come from the material evaluator, computed inside that time). For 1
//! and 64 concurrent games the driver runs every search to its visit budget, once to warm the
//! arenas up (as trees reused move after move are), then timed after `Search::restart`, best of
//! three runs (the development machine is shared); reported:
//! simulations per second, mean batch, the fraction of wall time spent outside `evaluate()`
//! (tree work: backup, selection, move generation, expansion, threading overhead), nodes and
//! bytes per node. Single-threaded rows also give the tree work's own CPU time against the
//! nominal network time (what the wall-clock fraction would be on an idle machine).
//!
//! `cargo run --release -p tenjiku-search --example mcts_bench [-- VISITS]`

use engine::Game;
use engine::{MoveTable, Position, Rules};
use search::mcts::{
    Driver, EvalRequest, Evaluation, Evaluator, MaterialEvaluator, MctsConfig, Search, EDGE_BYTES, NODE_BYTES,
};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// CPU time of the calling thread in ns (`CLOCK_THREAD_CPUTIME_ID`; 0 where unsupported).
#[cfg(target_os = "linux")]
fn thread_cpu_ns() -> u64 {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
    }
    let mut t = Timespec { sec: 0, nsec: 0 };
    // SAFETY: clock_gettime writes one timespec into `t`; clock 3 = CLOCK_THREAD_CPUTIME_ID.
    if unsafe { clock_gettime(3, &mut t) } == 0 {
        t.sec as u64 * 1_000_000_000 + t.nsec as u64
    } else {
        0
    }
}
#[cfg(not(target_os = "linux"))]
fn thread_cpu_ns() -> u64 {
    0
}

struct FakeNet {
    inner: MaterialEvaluator,
    per_64: Duration,
    /// CPU time of the calling thread spent inside `evaluate`.
    cpu_inside: u64,
    /// The nominal cost of every call so far.
    nominal: Duration,
}

impl Evaluator for FakeNet {
    fn evaluate(&mut self, requests: &[EvalRequest<'_>], out: &mut [Evaluation]) {
        let start = Instant::now();
        let cpu = thread_cpu_ns();
        let cost = self.per_64.mul_f64(requests.len() as f64 / 64.0);
        self.nominal += cost;
        self.inner.evaluate(requests, out);
        while start.elapsed() < cost {
            std::hint::spin_loop();
        }
        self.cpu_inside += thread_cpu_ns() - cpu;
    }
}

struct Row {
    name: String,
    sims: u64,
    secs: f64,
    outside: f64,
    /// Single thread: the tree work's CPU time against the nominal network time.
    outside_cpu: Option<f64>,
    /// Single thread: tree CPU time per simulation (µs).
    tree_us: Option<f64>,
    helper_share: f64,
    batch: f64,
    nodes: usize,
    edges: usize,
}

fn bench(name: &str, fen: &str, games: usize, batch: usize, visits: u32, gumbel: Option<usize>, threads: usize) -> Row {
    let t = Arc::new(MoveTable::new(&Rules::standard()));
    let pos = Position::from_fen(fen).unwrap();
    let game = Game::new(t, pos);
    let mut searches: Vec<Search> = (0..games)
        .map(|i| {
            let c = MctsConfig { gumbel, batch_per_tree: batch, seed: i as u64, ..MctsConfig::self_play(visits) };
            Search::new(c, &game)
        })
        .collect();
    let mut ev = FakeNet {
        inner: MaterialEvaluator::new(),
        per_64: Duration::from_micros(2500),
        cpu_inside: 0,
        nominal: Duration::ZERO,
    };
    Driver::new(threads).run(&mut searches, &mut ev);
    let mut best: Option<Row> = None;
    for _ in 0..3 {
        searches.iter_mut().for_each(|s| s.restart(&game));
        let mut d = Driver::new(threads);
        ev.cpu_inside = 0;
        ev.nominal = Duration::ZERO;
        let cpu = thread_cpu_ns();
        let start = Instant::now();
        d.run(&mut searches, &mut ev);
        let secs = start.elapsed().as_secs_f64();
        let tree_cpu = (thread_cpu_ns() - cpu).saturating_sub(ev.cpu_inside) as f64 * 1e-9;
        let single = threads == 1 && cpu > 0;
        let outside_cpu = single.then(|| tree_cpu / (tree_cpu + ev.nominal.as_secs_f64()));
        let sims: u64 = searches.iter().map(|s| s.simulations() as u64).sum();
        let tree_us = single.then(|| tree_cpu * 1e6 / sims as f64);
        let row = Row {
            name: format!(
                "{name}, {games} game{}, {} ×{batch}/tree{}, {threads} thr",
                if games == 1 { "" } else { "s" },
                if gumbel.is_some() { "Gumbel" } else { "PUCT" },
                if gumbel.is_some() { format!(" ({visits} visits)") } else { String::new() }
            ),
            sims,
            secs,
            outside: d.stats.outside_fraction(),
            outside_cpu,
            tree_us,
            helper_share: d.stats.helper_share(),
            batch: d.stats.mean_batch(),
            nodes: searches.iter().map(|s| s.tree().node_count()).sum(),
            edges: searches.iter().map(|s| s.tree().edge_count()).sum(),
        };
        if best.as_ref().is_none_or(|b| row.secs < b.secs) {
            best = Some(row);
        }
    }
    best.unwrap()
}

fn main() {
    let visits: u32 = std::env::args().nth(1).and_then(|v| v.parse().ok()).unwrap_or(256);
    println!("node {NODE_BYTES} B, edge {EDGE_BYTES} B; fake network 2.5 ms / 64 positions; {visits} visits per game");
    println!("| setting | simulations/s | mean batch | outside evaluate() (wall) | tree CPU µs/sim | tree CPU / (tree CPU + network) | helper share | nodes | edges/node | bytes/node |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut rows = Vec::new();
    for (pname, fen) in engine::perft::bench_positions().into_iter().filter(|(n, _)| n == "start" || n == "midgame-2") {
        rows.push(bench(&pname, &fen, 1, 64, visits, None, 1));
        rows.push(bench(&pname, &fen, 1, 8, visits, None, 1));
        for threads in [1, 2] {
            rows.push(bench(&pname, &fen, 64, 1, visits, None, threads));
        }
        rows.push(bench(&pname, &fen, 64, 4, visits, None, 2));
        rows.push(bench(&pname, &fen, 64, 1, 64, Some(16), 2));
    }
    for r in rows {
        let epn = r.edges as f64 / r.nodes.max(1) as f64;
        println!(
            "| {} | {:.0} | {:.1} | {:.1}% | {} | {} | {} | {} | {:.1} | {:.0} |",
            r.name,
            r.sims as f64 / r.secs,
            r.batch,
            100.0 * r.outside,
            r.tree_us.map_or("–".to_string(), |x| format!("{x:.1}")),
            r.outside_cpu.map_or("–".to_string(), |x| format!("{:.1}%", 100.0 * x)),
            if r.name.contains("1 thr") { "–".to_string() } else { format!("{:.0}%", 100.0 * r.helper_share) },
            r.nodes,
            epn,
            NODE_BYTES as f64 + EDGE_BYTES as f64 * epn
        );
    }
}
