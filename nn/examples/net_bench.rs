//! Network speed: batched inference positions/s, FLOPs, achieved GFLOP/s against the backend's
//! measured f32 matrix-multiply peak, and training-step positions/s.
//!
//! ```text
//! cargo run --release -p tenjiku-nn --example net_bench -- \
//!     [--backend flex|ndarray|wgpu|cuda] [--config configs/net-cpu.toml]... \
//!     [--batches 1,16,64,256] [--train-batch 256] [--seconds 3] [--no-train] [--no-full]
//!     [--peak-size 2048] [--precision f32|bf16|f16]
//! ```
//! `--precision` sets the inference precision (weights and activations; training stays f32).
//! Without `--config` it benchmarks `configs/net-tiny.toml`, `net-cpu.toml` and `net-gpu.toml`.
//! Prints Markdown tables (the form `BENCHMARKS.md` records).

use std::time::{Duration, Instant};

use burn::module::Module;
use burn::tensor::{Distribution, Tensor};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use nn::backend::{self, Device};
use nn::encoding::NUM_PLANES;
use nn::inference::Inference;
use nn::network::{NetConfig, Network, SQUARES};
use nn::policy::POLICY_SIZE;
use nn::train::{TrainBatch, TrainConfig, Trainer};

/// The allocator `tenjiku` uses (src/main.rs), so the figures are the binary's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

struct Opts {
    backend: String,
    configs: Vec<String>,
    batches: Vec<usize>,
    train_batch: usize,
    seconds: f64,
    train: bool,
    peak_size: usize,
    full: bool,
    precision: backend::Precision,
}

fn parse() -> Opts {
    let mut o = Opts {
        backend: "cpu".into(),
        configs: Vec::new(),
        batches: vec![1, 16, 64, 256],
        train_batch: 256,
        seconds: 3.0,
        train: true,
        peak_size: 2048,
        full: true,
        precision: backend::Precision::F32,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut val = || args.next().unwrap_or_else(|| panic!("{a} needs a value"));
        match a.as_str() {
            "--backend" => o.backend = val(),
            "--config" => o.configs.push(val()),
            "--batches" => o.batches = val().split(',').map(|s| s.parse().expect("batch size")).collect(),
            "--train-batch" => o.train_batch = val().parse().expect("batch size"),
            "--seconds" => o.seconds = val().parse().expect("seconds"),
            "--peak-size" => o.peak_size = val().parse().expect("size"),
            "--no-train" => o.train = false,
            "--no-full" => o.full = false,
            "--precision" => o.precision = val().parse().unwrap_or_else(|e| panic!("{e}")),
            _ => panic!("unknown argument {a}"),
        }
    }
    if o.configs.is_empty() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs");
        o.configs = ["net-tiny.toml", "net-cpu.toml", "net-gpu.toml"].iter().map(|c| format!("{dir}/{c}")).collect();
    }
    o
}

/// Run `f` until `seconds` have passed (at least `min` times); return calls per second.
fn rate(seconds: f64, min: usize, mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    let mut n = 0usize;
    while n < min || start.elapsed() < Duration::from_secs_f64(seconds) {
        f();
        n += 1;
    }
    n as f64 / start.elapsed().as_secs_f64()
}

/// Best f32 matmul GFLOP/s on `device` for an `n × n` product.
fn matmul_peak(device: &Device, n: usize, seconds: f64) -> f64 {
    let a: Tensor<2> = Tensor::random([n, n], Distribution::Default, device);
    let b: Tensor<2> = Tensor::random([n, n], Distribution::Default, device);
    let run = || {
        let c = a.clone().matmul(b.clone());
        let _ = c.slice([0..1, 0..1]).into_data();
    };
    run();
    let mut best = 0.0f64;
    for _ in 0..3 {
        let r = rate(seconds / 3.0, 2, run);
        best = best.max(r * 2.0 * (n as f64).powi(3) / 1e9);
    }
    best
}

/// Legal moves per position in the masked benchmark (a typical Tenjiku middlegame has 150–300).
const LEGAL: usize = 250;

fn random_inputs(rng: &mut ChaCha8Rng, batch: usize) -> Vec<f32> {
    (0..batch * NUM_PLANES * SQUARES).map(|_| if rng.gen_bool(0.05) { 1.0 } else { 0.0 }).collect()
}

fn main() {
    let o = parse();
    let device = backend::device_by_name(&o.backend).unwrap_or_else(|e| panic!("{e}"));
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    println!("backend: {} ({:?}), inference in {}, {} hardware threads", o.backend, device, o.precision, threads);
    println!("NUM_PLANES = {NUM_PLANES}, POLICY_SIZE = {POLICY_SIZE}");

    let peak = matmul_peak(&device, o.peak_size, o.seconds);
    println!("f32 matmul peak ({0}×{0}): {peak:.1} GFLOP/s\n", o.peak_size);

    let mut rng = ChaCha8Rng::seed_from_u64(1);
    println!("Full policy: every logit (172k per position) read back. Legal only: `evaluate_masked` with");
    println!("{LEGAL} legal moves per position (the self-play path: features on the device, legal logits on");
    println!("the host). GFLOP/s count the network's FLOPs without the move projection for the legal-only");
    println!("column (it is not run), with it for the full column.\n");
    println!("| config | blocks×ch | params | MFLOP/pos (w/o proj.) | batch | full pos/s | full GFLOP/s | legal-only pos/s | legal-only GFLOP/s | % of peak |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut train_rows = Vec::new();
    for path in &o.configs {
        let cfg = NetConfig::load(path).unwrap_or_else(|e| panic!("{e}"));
        let name = std::path::Path::new(path).file_name().unwrap().to_string_lossy().into_owned();
        let net = Network::seeded(&cfg, 1, &device);
        let params = net.num_params();
        let flops = cfg.flops_per_position() as f64;
        let mut eval = Inference::with_precision(net.clone(), &device, o.precision).unwrap_or_else(|e| panic!("{e}"));
        let trunk_flops = flops - cfg.projection_flops() as f64;
        for &b in &o.batches {
            let inputs = random_inputs(&mut rng, b);
            let legal: Vec<usize> = (0..b * LEGAL).map(|_| rng.gen_range(0..POLICY_SIZE)).collect();
            let offsets: Vec<usize> = (0..=b).map(|i| i * LEGAL).collect();
            let full = if o.full {
                eval.evaluate(&inputs, b); // warm-up
                b as f64
                    * rate(o.seconds, 2, || {
                        eval.evaluate(&inputs, b);
                    })
            } else {
                f64::NAN
            };
            eval.evaluate_masked(&inputs, b, &legal, &offsets);
            let masked = b as f64
                * rate(o.seconds, 2, || {
                    eval.evaluate_masked(&inputs, b, &legal, &offsets);
                });
            // `--no-full` leaves the full columns empty ("—") rather than printing NaN.
            let (full, g_full) = if full.is_nan() {
                ("—".to_string(), "—".to_string())
            } else {
                (format!("{full:.0}"), format!("{:.1}", full * flops / 1e9))
            };
            let g_masked = masked * trunk_flops / 1e9;
            println!(
                "| {name} | {}×{} | {params} | {:.1} ({:.1}) | {b} | {full} | {g_full} | {masked:.0} | {g_masked:.1} | {:.0}% |",
                cfg.blocks,
                cfg.channels,
                flops / 1e6,
                trunk_flops / 1e6,
                100.0 * g_masked / peak
            );
        }
        if o.train {
            let b = o.train_batch;
            let inputs = random_inputs(&mut rng, b);
            let idx: Vec<u32> = (0..b).map(|_| rng.gen_range(0..POLICY_SIZE as u32)).collect();
            let probs = vec![1.0f32; b];
            let offsets: Vec<usize> = (0..=b).collect();
            let wdl: Vec<[f32; 3]> = (0..b)
                .map(|i| {
                    let mut w = [0.0; 3];
                    w[i % 3] = 1.0;
                    w
                })
                .collect();
            let ml: Vec<f32> = (0..b).map(|i| (i % 200) as f32).collect();
            let mat: Vec<f32> = (0..b).map(|i| (i % 7) as f32 - 3.0).collect();
            let batch = TrainBatch {
                size: b,
                inputs: &inputs,
                policy_indices: &idx,
                policy_probs: &probs,
                policy_offsets: &offsets,
                wdl: &wdl,
                moves_left: &ml,
                material: &mat,
                captures: &[],
                capture_mask: &[],
            };
            let mut trainer = Trainer::new(net, &device, TrainConfig::default());
            trainer.step(&batch); // warm-up
            let steps = rate(o.seconds, 2, || {
                trainer.step(&batch);
            });
            // Training ≈ 3× the forward FLOPs (forward + two backward products).
            train_rows.push((name, b, steps * b as f64, 3.0 * flops * steps * b as f64 / 1e9));
        }
    }
    if !train_rows.is_empty() {
        println!("\n| config | train batch | pos/s | ≈GFLOP/s (3× forward) |");
        println!("|---|---|---|---|");
        for (name, b, pps, g) in train_rows {
            println!("| {name} | {b} | {pps:.0} | {g:.1} |");
        }
    }
}
