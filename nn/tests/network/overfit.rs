//! A tiny network memorises a handful of positions with random targets: every head's loss falls
//! by at least 90%, which shows the heads, losses and optimiser are wired right.

use std::time::Instant;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use nn::backend;
use nn::encoding::NUM_PLANES;
use nn::network::{NetConfig, Network, SQUARES};
use nn::policy::POLICY_SIZE;
use nn::train::{TrainBatch, TrainConfig, Trainer};

#[test]
fn tiny_network_overfits_a_handful_of_positions() {
    let cfg = NetConfig::load(concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/net-tiny.toml")).unwrap();
    assert!(cfg.moves_left_head && cfg.material_head, "net-tiny.toml exercises every head");
    let device = backend::cpu_device();
    let mut rng = ChaCha8Rng::seed_from_u64(2024);
    let b = 8;
    let inputs: Vec<f32> = (0..b * NUM_PLANES * SQUARES).map(|_| if rng.gen_bool(0.1) { 1.0 } else { 0.0 }).collect();
    let policy_indices: Vec<u32> = (0..b).map(|_| rng.gen_range(0..POLICY_SIZE as u32)).collect();
    let policy_probs = vec![1.0f32; b];
    let policy_offsets: Vec<usize> = (0..=b).collect();
    let wdl: Vec<[f32; 3]> = (0..b)
        .map(|_| {
            let mut w = [0.0; 3];
            w[rng.gen_range(0..3)] = 1.0;
            w
        })
        .collect();
    let moves_left: Vec<f32> = (0..b).map(|_| rng.gen_range(0..300) as f32).collect();
    let material: Vec<f32> = (0..b).map(|_| rng.gen_range(-5.0..5.0)).collect();
    let batch = TrainBatch {
        size: b,
        inputs: &inputs,
        policy_indices: &policy_indices,
        policy_probs: &policy_probs,
        policy_offsets: &policy_offsets,
        wdl: &wdl,
        moves_left: &moves_left,
        material: &material,
        captures: &[],
        capture_mask: &[],
    };

    let train_cfg = TrainConfig { lr: 1e-2, weight_decay: 0.0, ..TrainConfig::default() };
    let mut trainer = Trainer::new(Network::seeded(&cfg, 5, &device), &device, train_cfg);
    let start = Instant::now();
    let first = trainer.step(&batch);
    let mut last = first;
    let mut steps = 1;
    let done = |l: &nn::train::Losses| {
        l.policy <= 0.1 * first.policy
            && l.value <= 0.1 * first.value
            && l.moves_left <= 0.1 * first.moves_left
            && l.material <= 0.1 * first.material
    };
    while steps < 600 && !done(&last) {
        last = trainer.step(&batch);
        steps += 1;
    }
    eprintln!("{steps} steps in {:.2?}: {first:?} → {last:?}", start.elapsed());
    assert!(done(&last), "losses did not fall by 90% in {steps} steps: {first:?} → {last:?}");
}
