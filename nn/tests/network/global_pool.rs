//! Global-pooling biases (`global_pool = true`): a new network computes exactly what the same
//! seed gives without them, training reaches them, they let a square's policy see the far side
//! of the board (which 3×3 convolutions alone cannot), and they survive a checkpoint.

use nn::backend;
use nn::checkpoint::{self, Checkpoint, Header};
use nn::encoding::NUM_PLANES;
use nn::inference::Inference;
use nn::network::{NetConfig, Network, SQUARES};
use nn::policy::NUM_MOVE_PLANES;
use nn::train::{TrainConfig, Trainer};

use super::checkpoint::{inputs, Data};

fn tiny(global_pool: bool) -> NetConfig {
    let mut cfg = NetConfig::load(concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/net-tiny.toml")).unwrap();
    cfg.global_pool = global_pool;
    cfg
}

/// Policy logits, WDL logits and material of `b` positions.
pub(super) fn outputs(net: Network, x: &[f32], b: usize) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let mut e = Inference::new(net, &backend::cpu_device());
    let o = e.evaluate(x, b);
    (o.policy_logits.to_vec(), o.wdl.concat(), o.material.to_vec())
}

/// The network after twenty training steps on the checkpoint tests' four positions.
fn trained(cfg: &NetConfig) -> Network {
    let device = backend::cpu_device();
    let data = Data::new();
    let mut trainer = Trainer::new(Network::seeded(cfg, 5, &device), &device, TrainConfig::default());
    for _ in 0..20 {
        trainer.step(&data.batch());
    }
    trainer.network()
}

fn max_abs_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

#[test]
fn a_new_global_pooling_network_computes_what_the_same_seed_gives_without_it() {
    let device = backend::cpu_device();
    let (plain, pooled) = (tiny(false), tiny(true));
    let extra = pooled.parameter_count() - plain.parameter_count();
    // One linear layer (2c -> c) per block and one (2p -> p) on the policy features.
    let (c, p) = (plain.channels as u64, plain.policy_channels as u64);
    assert_eq!(extra, plain.blocks as u64 * (2 * c * c + c) + 2 * p * p + p);
    let a = Network::seeded(&plain, 1, &device);
    let b = Network::seeded(&pooled, 1, &device);
    assert_eq!(burn::module::Module::num_params(&b) as u64, pooled.parameter_count());
    let x = inputs(11, 3);
    let (pa, wa, ma) = outputs(a, &x, 3);
    let (pb, wb, mb) = outputs(b, &x, 3);
    // Zero-initialised biases add exactly nothing, and the other weights are the same draws.
    assert_eq!(max_abs_diff(&pa, &pb), 0.0, "policy");
    assert_eq!(max_abs_diff(&wa, &wb), 0.0, "wdl");
    assert_eq!(max_abs_diff(&ma, &mb), 0.0, "material");
}

#[test]
fn global_pooling_lets_a_square_see_the_far_side_of_the_board() {
    // The tiny network's policy at a square depends on squares at most 3 away (a 1×1 input
    // convolution, two 3×3 convolutions in its block, one in the policy head). Change the
    // input at one corner only and read the policy of the opposite corner.
    let x = inputs(13, 1);
    let mut changed = x.clone();
    for plane in 0..NUM_PLANES {
        let i = plane * SQUARES; // square 0 of each plane
        changed[i] = 1.0 - changed[i];
    }
    let far = (SQUARES - 1) * NUM_MOVE_PLANES..SQUARES * NUM_MOVE_PLANES;
    for (global_pool, sees) in [(false, false), (true, true)] {
        let net = trained(&tiny(global_pool));
        let (before, _, _) = outputs(net.clone(), &x, 1);
        let (after, _, _) = outputs(net, &changed, 1);
        let d = max_abs_diff(&before[far.clone()], &after[far.clone()]);
        let near = max_abs_diff(&before[..NUM_MOVE_PLANES], &after[..NUM_MOVE_PLANES]);
        eprintln!("global_pool = {global_pool}: far corner's logits moved by {d}, the corner's own by {near}");
        // Without pooling only float rounding reaches the far corner (the backend's matrix
        // products may block their sums differently; ~1e-5 seen), with it a real change (~6e-3).
        assert_eq!(d > 3e-4, sees, "global_pool = {global_pool}: far corner's logits moved by {d}");
        // The corner's own logits move either way.
        assert!(near > 1e-3, "{near}");
    }
}

/// Save `net` (of config `cfg`) as a checkpoint, load it back, check the loaded network computes
/// what `net` did, and return the loaded checkpoint.
pub(super) fn round_trip(cfg: &NetConfig, net: Network) -> Checkpoint {
    let tmp = tempfile::Builder::new().prefix("tenjiku-nn-round-trip-").tempdir().unwrap();
    let x = inputs(17, 2);
    let before = outputs(net.clone(), &x, 2);
    let path = tmp.path().join("net.ckpt");
    let header = Header::new(cfg.clone(), "standard");
    checkpoint::save(&path, &Checkpoint { header, network: net, optimizer: None }).unwrap();
    let loaded = checkpoint::load(&path, &backend::cpu_device()).unwrap();
    assert_eq!(before, outputs(loaded.network.clone(), &x, 2));
    loaded
}

#[test]
fn a_global_pooling_checkpoint_round_trips_and_plain_headers_do_not_name_it() {
    let cfg = tiny(true);
    let loaded = round_trip(&cfg, trained(&cfg));
    assert!(loaded.header.network.global_pool);
    assert!(loaded.header.to_toml().contains("global_pool = true"));
    // Networks without it keep the header text they always had.
    assert!(!Header::new(tiny(false), "standard").to_toml().contains("global_pool"));
}
