//! Offline fit: train network configs on the same stored self-play positions, with the same
//! batches, and compare their losses on held-out games. An architecture or an auxiliary target
//! is then judged on what it learns from the same data, not through one chaotic self-play run a
//! side (BENCHMARKS.md "Global pooling": the runs diverge from the first step).
//!
//! ```text
//! cargo run --release -p tenjiku-train --example fit -- --run-dir DIR --net A.toml [--net B.toml]...
//!     [--steps 1000] [--eval-every 250] [--batch 64] [--seed 1] [--lr 0.001]
//!     [--capture-weight 4] [--capture-horizon 4] [--q-weight 0.5] [--csv OUT.csv]
//! ```
//! `DIR` holds a run's games (`DIR/games/w0000/*.chunk`, e.g. a carried run's `games.tar.xz`
//! unpacked). Every tenth game (by its order in the files) is held out; training samples the
//! others uniformly with one random sequence shared by every network. Each network starts from
//! `Network::seeded(seed)`; a network with a capture head trains it with `--capture-weight`.
//! Held-out losses: the policy cross-entropy per position with a policy target, the value
//! cross-entropy against the run's value target (result mixed with the root value by
//! `--q-weight`), the material squared error, over every held-out position in batches.
//! Prints a Markdown table and writes every evaluation to `--csv` when given.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use engine::{MoveTable, Rules};
use nn::backend;
use nn::network::{NetConfig, Network};
use nn::train::{compute_losses, TrainConfig, Trainer};
use train::{parse_chunk_key, Batch, Chunk, GameFile, Horizons, ReplayBuffer, Targets};

struct Opts {
    run_dir: PathBuf,
    nets: Vec<PathBuf>,
    steps: u64,
    eval_every: u64,
    batch: usize,
    seed: u64,
    lr: f64,
    capture_weight: f32,
    capture_horizon: u32,
    q_weight: f32,
    csv: Option<PathBuf>,
}

fn parse() -> Result<Opts, String> {
    let mut o = Opts {
        run_dir: PathBuf::new(),
        nets: Vec::new(),
        steps: 1000,
        eval_every: 250,
        batch: 64,
        seed: 1,
        lr: 1e-3,
        capture_weight: 4.0,
        capture_horizon: 4,
        q_weight: 0.5,
        csv: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let v = args.next().ok_or_else(|| format!("{a} needs a value"))?;
        let num = |what: &str| format!("{a} {v}: expected {what}");
        match a.as_str() {
            "--run-dir" => o.run_dir = v.into(),
            "--net" => o.nets.push(v.into()),
            "--steps" => o.steps = v.parse().map_err(|_| num("a whole number of steps"))?,
            "--eval-every" => o.eval_every = v.parse().map_err(|_| num("a whole number of steps, at least 1"))?,
            "--batch" => o.batch = v.parse().map_err(|_| num("a batch size from 1 to 8192"))?,
            "--seed" => o.seed = v.parse().map_err(|_| num("an integer from 0 to 2^64-1"))?,
            "--lr" => o.lr = v.parse().map_err(|_| num("a number above 0"))?,
            "--capture-weight" => o.capture_weight = v.parse().map_err(|_| num("a number from 0 to 1000"))?,
            "--capture-horizon" => o.capture_horizon = v.parse().map_err(|_| num("plies, at least 1"))?,
            "--q-weight" => o.q_weight = v.parse().map_err(|_| num("a number from 0 to 1"))?,
            "--csv" => o.csv = Some(v.into()),
            _ => return Err(format!("unknown option {a} (see the top of train/examples/fit.rs)")),
        }
    }
    if o.nets.is_empty() || o.run_dir.as_os_str().is_empty() {
        return Err("need --run-dir DIR and at least one --net CONFIG".into());
    }
    if o.eval_every == 0 || !(1..=8192).contains(&o.batch) || !(o.lr > 0.0 && o.lr <= 10.0) {
        return Err("--eval-every must be at least 1, --batch 1 to 8192, --lr above 0 and at most 10".into());
    }
    if !(0.0..=1000.0).contains(&o.capture_weight) || o.capture_horizon == 0 || !(0.0..=1.0).contains(&o.q_weight) {
        return Err("--capture-weight must be 0 to 1000, --capture-horizon at least 1, --q-weight 0 to 1".into());
    }
    Ok(o)
}

/// Every game of the run's chunks, in key order.
fn load_games(run_dir: &Path) -> Result<Vec<GameFile>, String> {
    let mut keys = Vec::new();
    let games = run_dir.join("games");
    let mut dirs = vec![games.clone()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).map_err(|e| format!("{}: {e}", d.display()))?.flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if let Ok(rel) = p.strip_prefix(run_dir) {
                keys.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    keys.sort();
    let mut out = Vec::new();
    for key in keys {
        let Some(name) = parse_chunk_key(&key) else { continue };
        let bytes = std::fs::read(run_dir.join(&key)).map_err(|e| format!("{key}: {e}"))?;
        let chunk = Chunk::from_object(&name, &bytes).map_err(|e| format!("{key}: {e}"))?;
        out.extend(chunk.games);
    }
    if out.is_empty() {
        return Err(format!("no game chunks under {}", games.display()));
    }
    Ok(out)
}

/// Held-out losses: (policy per policy position, value, material, captures), each a mean over
/// every held-out position.
fn held_out(
    net: &Network,
    held: &[ReplayBuffer],
    table: &MoveTable,
    targets: Targets,
    tc: &TrainConfig,
    device: &nn::backend::Device,
) -> [f64; 4] {
    let mut batch = Batch::default();
    let (mut sums, mut positions, mut policy_positions) = ([0.0f64; 4], 0usize, 0usize);
    for part in held {
        part.batch_in_order(0, part.len(), table, targets, &mut batch);
        let (_, l) = compute_losses(net, &batch.as_train_batch(), tc, device);
        let n = batch.size;
        sums[0] += l.policy as f64 * n as f64; // a mean over the batch: zero rows have no target
        sums[1] += l.value as f64 * n as f64;
        sums[2] += l.material as f64 * n as f64;
        sums[3] += l.captures as f64 * n as f64;
        positions += n;
        policy_positions += batch.policy_positions;
    }
    [
        sums[0] / policy_positions.max(1) as f64,
        sums[1] / positions as f64,
        sums[2] / positions as f64,
        sums[3] / positions as f64,
    ]
}

fn main() {
    let o = parse().unwrap_or_else(|e| {
        eprintln!("fit: {e}");
        std::process::exit(2)
    });
    if let Err(e) = run(&o) {
        eprintln!("fit: {e}");
        std::process::exit(1);
    }
}

fn run(o: &Opts) -> Result<(), String> {
    // Every network config first: a bad one is reported before minutes of loading.
    let configs = o
        .nets
        .iter()
        .map(|p| NetConfig::load(p).map(|c| (p, c)).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    let table = Arc::new(MoveTable::new(&Rules::standard()));
    let t = Instant::now();
    let games = load_games(&o.run_dir)?;
    let horizons = Horizons { material: 0, capture: o.capture_horizon };
    let (mut train_samples, mut held_games) = (Vec::new(), Vec::new());
    for (i, g) in games.iter().enumerate() {
        if g.rules != "standard" {
            return Err(format!("a game under rules '{}': this benchmark reads standard games", g.rules));
        }
        let s = g.samples_with(&table, horizons).map_err(|e| format!("game {i}: {e}"))?;
        if i % 10 == 0 {
            held_games.push(s);
        } else {
            train_samples.push(s);
        }
    }
    let train_len: usize = train_samples.iter().map(Vec::len).sum();
    let mut buffer = ReplayBuffer::new(train_len.max(1));
    train_samples.into_iter().for_each(|s| buffer.push_game(s));
    // Held-out positions in parts of at most 256 (one forward pass each).
    let mut held = Vec::new();
    let mut part = ReplayBuffer::new(256);
    for s in held_games.into_iter().flatten() {
        if part.is_full() {
            held.push(std::mem::replace(&mut part, ReplayBuffer::new(256)));
        }
        part.push_game(vec![s]);
    }
    if part.len() > 0 {
        held.push(part);
    }
    let held_len: usize = held.iter().map(ReplayBuffer::len).sum();
    if train_len == 0 || held_len == 0 {
        return Err(format!("{} games: expected at least two with positions (one is held out)", games.len()));
    }
    eprintln!(
        "{} games: {} training positions, {} held out (every tenth game); loaded in {:.1?}",
        games.len(),
        train_len,
        held_len,
        t.elapsed()
    );

    let device = backend::cpu_device();
    let mut rows =
        vec!["net,step,seconds,train_total,heldout_policy,heldout_value,heldout_material,heldout_captures".to_string()];
    let mut table_rows = Vec::new();
    for (path, cfg) in configs {
        let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
        let captures = cfg.capture_head && o.capture_weight > 0.0;
        let tc = TrainConfig {
            lr: o.lr,
            capture_weight: if captures { o.capture_weight } else { 0.0 },
            ..TrainConfig::default()
        };
        let targets = Targets { material_scale: 1000.0, q_weight: o.q_weight, captures, surprise_weight: 0.0 };
        let mut trainer = Trainer::new(Network::seeded(&cfg, o.seed, &device), &device, tc.clone());
        // The same batches for every network.
        let mut rng = ChaCha8Rng::seed_from_u64(o.seed);
        let mut batch = Batch::default();
        let start = Instant::now();
        let mut train_total = 0.0f64;
        let mut since = 0u64;
        for step in 1..=o.steps {
            buffer.sample_batch(&mut rng, o.batch, &table, targets, &mut batch);
            train_total += trainer.step(&batch.as_train_batch()).total as f64;
            since += 1;
            if step % o.eval_every == 0 || step == o.steps {
                let [p, v, m, c] = held_out(&trainer.network(), &held, &table, targets, &tc, &device);
                let secs = start.elapsed().as_secs_f64();
                let mean = train_total / since as f64;
                eprintln!("{name} step {step}: held-out policy {p:.4} value {v:.4} material {m:.4} captures {c:.4} ({secs:.0} s)");
                rows.push(format!("{name},{step},{secs:.1},{mean:.5},{p:.5},{v:.5},{m:.5},{c:.5}"));
                if step == o.steps {
                    table_rows.push(format!("| {name} | {step} | {p:.4} | {v:.4} | {m:.4} | {c:.4} | {secs:.0} |"));
                }
                (train_total, since) = (0.0, 0);
            }
        }
    }
    println!("| network | steps | held-out policy | value | material | captures | seconds |");
    println!("|---|---|---|---|---|---|---|");
    for r in table_rows {
        println!("{r}");
    }
    if let Some(csv) = &o.csv {
        std::fs::write(csv, rows.join("\n") + "\n").map_err(|e| format!("{}: {e}", csv.display()))?;
    }
    Ok(())
}
