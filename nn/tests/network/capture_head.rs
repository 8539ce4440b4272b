//! The capture head (`capture_head = true`): a new network computes what the same seed gives
//! without it, it learns per-square targets through its loss (and is left alone without them),
//! and it survives a checkpoint.

use nn::backend;
use nn::checkpoint::Header;
use nn::network::{NetConfig, Network, SQUARES};
use nn::train::{TrainConfig, Trainer};

use super::checkpoint::{inputs, Data};
use super::global_pool::{outputs, round_trip};

fn tiny(capture_head: bool) -> NetConfig {
    NetConfig { capture_head, ..super::checkpoint::tiny() }
}

#[test]
fn a_capture_head_leaves_what_the_same_seed_gives_without_it() {
    let device = backend::cpu_device();
    let (plain, with) = (tiny(false), tiny(true));
    // One 1×1 convolution with a bias, from the tower's channels to one plane.
    assert_eq!(with.parameter_count() - plain.parameter_count(), plain.channels as u64 + 1);
    assert_eq!(with.flops_per_position() - plain.flops_per_position(), 2 * plain.channels as u64 * SQUARES as u64);
    let b = Network::seeded(&with, 1, &device);
    assert_eq!(burn::module::Module::num_params(&b) as u64, with.parameter_count());
    assert!(b.has_capture_head());
    let a = Network::seeded(&plain, 1, &device);
    assert!(!a.has_capture_head());
    let x = inputs(11, 3);
    // Its weights are drawn after all the others: the rest of the network is the same draws.
    assert_eq!(outputs(a, &x, 3), outputs(b, &x, 3));
}

#[test]
fn the_capture_head_learns_per_square_targets_and_is_left_alone_without_them() {
    let device = backend::cpu_device();
    let cfg = tiny(true);
    let b = 4;
    let mut data = Data::new();
    let x = data.inputs().to_vec();
    // Occupied: squares where plane 0 or plane 1 is set; taken: those where plane 0 is. A 1×1
    // input convolution sees both, so the head can learn it exactly.
    let (mut taken, mut mask) = (vec![0.0f32; b * SQUARES], vec![0.0f32; b * SQUARES]);
    let planes = x.len() / (b * SQUARES);
    for i in 0..b {
        for s in 0..SQUARES {
            let plane = |p: usize| x[(i * planes + p) * SQUARES + s];
            mask[i * SQUARES + s] = if plane(0) + plane(1) > 0.0 { 1.0 } else { 0.0 };
            taken[i * SQUARES + s] = plane(0);
        }
    }
    assert!(mask.iter().sum::<f32>() > 100.0 && taken.iter().sum::<f32>() > 50.0);
    let tc = TrainConfig { lr: 1e-2, weight_decay: 0.0, ..TrainConfig::default() };

    // Without targets the loss is not computed and the head's weights do not move.
    let mut trainer = Trainer::new(Network::seeded(&cfg, 5, &device), &device, tc.clone());
    let before = trainer.network().parameters();
    let l = trainer.step(&data.batch());
    assert_eq!(l.captures, 0.0);
    let after = trainer.network().parameters();
    let (wb, wa) = (&before[before.len() - 2], &after[after.len() - 2]);
    assert_eq!(wb.0, vec![1, cfg.channels, 1, 1], "the head's weight is the last tensor but its bias");
    assert_eq!(wb.1, wa.1, "no target, no gradient: the head's weights stay");

    // With them it learns.
    data.set_captures(taken, mask);
    let mut trainer = Trainer::new(Network::seeded(&cfg, 5, &device), &device, tc);
    let first = trainer.step(&data.batch());
    assert!(first.captures > 0.3, "{first:?}");
    let mut last = first;
    for _ in 0..150 {
        last = trainer.step(&data.batch());
    }
    eprintln!("capture loss {} → {}", first.captures, last.captures);
    assert!(last.captures < 0.25 * first.captures, "{first:?} → {last:?}");
    assert!(last.total.is_finite());
}

#[test]
fn a_capture_head_checkpoint_round_trips_and_plain_headers_do_not_name_it() {
    let cfg = tiny(true);
    let loaded = round_trip(&cfg, Network::seeded(&cfg, 3, &backend::cpu_device()));
    assert!(loaded.header.network.capture_head && loaded.network.has_capture_head());
    assert!(loaded.header.to_toml().contains("capture_head = true"));
    assert!(!Header::new(tiny(false), "standard").to_toml().contains("capture_head"));
}
