//! Checkpoints: save/load round trips give bitwise-identical outputs, the other CPU backend
//! agrees within 1e-4, and damaged or mismatched files are one-line errors.

use std::path::Path;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use nn::backend;
use nn::checkpoint::{self, Checkpoint, CheckpointError, Header};
use nn::encoding::NUM_PLANES;
use nn::inference::Inference;
use nn::network::{NetConfig, Network, SQUARES};
use nn::policy::POLICY_SIZE;
use nn::train::{TrainBatch, TrainConfig, Trainer};

pub(super) fn tiny() -> NetConfig {
    NetConfig::load(concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/net-tiny.toml")).unwrap()
}

fn tmpdir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(&format!("tenjiku-nn-{name}-")).tempdir().unwrap()
}

pub(super) fn inputs(seed: u64, batch: usize) -> Vec<f32> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..batch * NUM_PLANES * SQUARES).map(|_| if rng.gen_bool(0.1) { 1.0 } else { 0.0 }).collect()
}

/// Training data for the tiny network: four positions.
pub(super) struct Data {
    x: Vec<f32>,
    idx: [u32; 4],
    probs: [f32; 4],
    offsets: [usize; 5],
    wdl: [[f32; 3]; 4],
    moves_left: [f32; 4],
    material: [f32; 4],
    captures: Vec<f32>,
    capture_mask: Vec<f32>,
}

impl Data {
    pub(super) fn new() -> Self {
        Data {
            x: inputs(7, 4),
            idx: [3, 500, 9000, (POLICY_SIZE - 1) as u32],
            probs: [1.0; 4],
            offsets: [0, 1, 2, 3, 4],
            wdl: [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.5, 0.5, 0.0]],
            moves_left: [10.0, 20.0, 30.0, 40.0],
            material: [1.0, -1.0, 0.0, 2.0],
            captures: Vec::new(),
            capture_mask: Vec::new(),
        }
    }

    /// The four positions' input planes.
    pub(super) fn inputs(&self) -> &[f32] {
        &self.x
    }

    /// Give the positions capture targets (`4 × 256` each; empty: none).
    pub(super) fn set_captures(&mut self, captures: Vec<f32>, mask: Vec<f32>) {
        self.captures = captures;
        self.capture_mask = mask;
    }

    pub(super) fn batch(&self) -> TrainBatch<'_> {
        TrainBatch {
            size: 4,
            inputs: &self.x,
            policy_indices: &self.idx,
            policy_probs: &self.probs,
            policy_offsets: &self.offsets,
            wdl: &self.wdl,
            moves_left: &self.moves_left,
            material: &self.material,
            captures: &self.captures,
            capture_mask: &self.capture_mask,
        }
    }
}

/// A tiny network after two training steps (so batch-norm statistics and optimiser moments are
/// not at their initial values), as a checkpoint with optimiser state, and the trainer.
fn trained() -> (Checkpoint, Trainer) {
    let cfg = tiny();
    let device = backend::cpu_device();
    let data = Data::new();
    let mut trainer = Trainer::new(Network::seeded(&cfg, 3, &device), &device, TrainConfig::default());
    trainer.step(&data.batch());
    trainer.step(&data.batch());
    let mut header = Header::new(cfg, "standard");
    header.step = trainer.steps();
    header.parent = Some("gen-0".into());
    let ckpt = Checkpoint { header, network: trainer.network(), optimizer: Some(trainer.optimizer_state()) };
    (ckpt, trainer)
}

fn trained_checkpoint() -> Checkpoint {
    trained().0
}

fn outputs(
    net: Network,
    device: &nn::backend::Device,
    x: &[f32],
    b: usize,
) -> (Vec<f32>, Vec<[f32; 3]>, Vec<f32>, Vec<f32>) {
    let mut e = Inference::new(net, device);
    let o = e.evaluate(x, b);
    (o.policy_logits.to_vec(), o.wdl.to_vec(), o.moves_left.to_vec(), o.material.to_vec())
}

fn err_text(path: &Path) -> String {
    match checkpoint::load(path, &backend::cpu_device()) {
        Ok(_) => panic!("{} loaded", path.display()),
        Err(e) => {
            let s = e.to_string();
            assert!(!s.contains('\n'), "error is one line: {s}");
            s
        }
    }
}

#[test]
fn save_load_is_bitwise_identical() {
    let tmp = tmpdir("roundtrip");
    let dir = tmp.path();
    let path = dir.join("net.ckpt");
    let ckpt = trained_checkpoint();
    let device = backend::cpu_device();
    let x = inputs(11, 5);
    let before = outputs(ckpt.network.clone(), &device, &x, 5);
    let sum = checkpoint::save(&path, &ckpt).unwrap();

    let loaded = checkpoint::load(&path, &device).unwrap();
    assert_eq!(loaded.header.checksum, sum);
    let mut expect = ckpt.header.clone();
    expect.checksum = sum;
    assert_eq!(loaded.header, expect);
    assert!(loaded.optimizer == ckpt.optimizer, "optimizer bytes round-trip");
    let after = outputs(loaded.network, &device, &x, 5);
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&before.0), bits(&after.0), "policy logits");
    assert_eq!(bits(&before.1.concat()), bits(&after.1.concat()), "wdl");
    assert_eq!(bits(&before.2), bits(&after.2), "moves left");
    assert_eq!(bits(&before.3), bits(&after.3), "material");
    assert_eq!(before.2.len(), 5);

    // `checkpoint info` prints the header as valid TOML, checksum included.
    let shown: toml::Value = toml::from_str(&loaded.header.to_string()).unwrap();
    assert_eq!(shown["checksum"].as_str().unwrap(), format!("xxh64:{sum:016x}"));
    assert_eq!(shown["network"]["blocks"].as_integer(), Some(1));

    // The header alone reads back too, and nothing temporary is left behind.
    assert_eq!(checkpoint::read_header(&path).unwrap(), loaded.header);
    let names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, vec![std::ffi::OsString::from("net.ckpt")]);
}

/// A trainer restored from a checkpoint (weights + optimiser state) takes exactly the step the
/// original trainer takes; one restored without the optimiser state does not.
#[test]
fn optimizer_state_resumes() {
    let tmp = tmpdir("resume");
    let dir = tmp.path();
    let path = dir.join("net.ckpt");
    let (ckpt, mut original) = trained();
    checkpoint::save(&path, &ckpt).unwrap();
    let device = backend::cpu_device();
    let data = Data::new();
    let x = inputs(13, 3);

    let loaded = checkpoint::load(&path, &device).unwrap();
    let mut resumed = Trainer::new(loaded.network, &device, TrainConfig::default());
    resumed.load_optimizer_state(loaded.optimizer.as_deref().unwrap()).unwrap();
    let fresh_net = checkpoint::load(&path, &device).unwrap().network;
    let mut fresh = Trainer::new(fresh_net, &device, TrainConfig::default());

    let a = original.step(&data.batch());
    let b = resumed.step(&data.batch());
    fresh.step(&data.batch());
    assert_eq!(a, b, "same losses before the step");
    let after = |t: &Trainer| outputs(t.network(), &device, &x, 3).0;
    assert_eq!(after(&original), after(&resumed), "same weights after the step");
    assert_ne!(after(&original), after(&fresh), "the optimiser state matters");
    assert!(resumed.load_optimizer_state(b"garbage").unwrap_err().to_string().starts_with("bad optimizer state"));
}

#[test]
fn seeded_networks_are_reproducible() {
    let cfg = tiny();
    let device = backend::cpu_device();
    let x = inputs(5, 2);
    let a = outputs(Network::seeded(&cfg, 42, &device), &device, &x, 2);
    let b = outputs(Network::seeded(&cfg, 42, &device), &device, &x, 2);
    let c = outputs(Network::seeded(&cfg, 43, &device), &device, &x, 2);
    assert_eq!(a.0, b.0);
    assert_ne!(a.0, c.0);
}

/// The other CPU backend (ndarray, enabled for tests by the dev-dependency on burn) reads the same
/// file and computes the same outputs within 1e-4.
#[test]
fn other_cpu_backend_agrees() {
    let tmp = tmpdir("cross");
    let dir = tmp.path();
    let path = dir.join("net.ckpt");
    let ckpt = trained_checkpoint();
    checkpoint::save(&path, &ckpt).unwrap();
    let x = inputs(12, 3);
    let flex = backend::device_by_name("flex").unwrap();
    #[allow(deprecated)]
    let other = burn::tensor::Device::ndarray();
    let a = outputs(checkpoint::load(&path, &flex).unwrap().network, &flex, &x, 3);
    let b = outputs(checkpoint::load(&path, &other).unwrap().network, &other, &x, 3);
    let max_diff = |p: &[f32], q: &[f32]| p.iter().zip(q).map(|(x, y)| (x - y).abs()).fold(0.0f32, f32::max);
    assert_eq!(a.0.len(), b.0.len());
    assert!(max_diff(&a.0, &b.0) <= 1e-4, "policy differs by {}", max_diff(&a.0, &b.0));
    assert!(max_diff(&a.1.concat(), &b.1.concat()) <= 1e-4, "wdl differs");
    assert!(max_diff(&a.2, &b.2) <= 1e-4, "moves left differs");
    assert!(max_diff(&a.3, &b.3) <= 1e-4, "material differs");
}

#[test]
fn damaged_files_are_errors() {
    let tmp = tmpdir("damaged");
    let dir = tmp.path();
    let path = dir.join("net.ckpt");
    checkpoint::save(&path, &trained_checkpoint()).unwrap();
    let good = std::fs::read(&path).unwrap();
    let bad = dir.join("bad.ckpt");

    // Truncated anywhere: a clear error, never a panic.
    for cut in [1, 5, 8, 20, 24, 100, good.len() / 2, good.len() - 1] {
        std::fs::write(&bad, &good[..cut]).unwrap();
        let e = err_text(&bad);
        assert!(e.contains("is truncated"), "cut at {cut}: {e}");
    }
    std::fs::write(&bad, []).unwrap();
    assert!(err_text(&bad).contains("not a network checkpoint"));

    // A flipped byte in the weights, in the header, in the checksum itself.
    for at in [good.len() - 100, 30, 17] {
        let mut b = good.clone();
        b[at] ^= 0x40;
        std::fs::write(&bad, &b).unwrap();
        let e = err_text(&bad);
        assert!(e.contains("corrupt: checksum mismatch"), "flip at {at}: {e}");
    }

    // Not a checkpoint at all; extra bytes at the end; a future format version.
    std::fs::write(&bad, b"[network]\nblocks = 1\n").unwrap();
    assert!(err_text(&bad).contains("is not a network checkpoint (bad magic bytes)"));
    let mut b = good.clone();
    b.extend_from_slice(b"junk");
    std::fs::write(&bad, &b).unwrap();
    assert!(err_text(&bad).contains("unexpected bytes at the end"));
    let mut b = good.clone();
    b[8] = 9;
    std::fs::write(&bad, &b).unwrap();
    assert!(err_text(&bad).contains("has format version 9, this build reads version 1"));

    // A missing file.
    assert!(err_text(&dir.join("missing.ckpt")).starts_with("cannot read checkpoint"));
}

#[test]
fn mismatched_files_are_errors() {
    let tmp = tmpdir("mismatch");
    let dir = tmp.path();
    let path = dir.join("net.ckpt");
    let device = backend::cpu_device();

    let mut ckpt = trained_checkpoint();
    ckpt.header.encoding_version += 1;
    checkpoint::save(&path, &ckpt).unwrap();
    let e = err_text(&path);
    assert!(
        e.contains(&format!("has encoding version {}, this build encodes version", ckpt.header.encoding_version)),
        "{e}"
    );
    // `info` still reads such a header.
    assert_eq!(checkpoint::read_header(&path).unwrap().encoding_version, ckpt.header.encoding_version);

    let mut ckpt = trained_checkpoint();
    ckpt.header.num_planes += 2;
    checkpoint::save(&path, &ckpt).unwrap();
    assert!(err_text(&path).contains(&format!("has input planes {}, this build has {NUM_PLANES}", NUM_PLANES + 2)));

    let mut ckpt = trained_checkpoint();
    ckpt.header.policy_size -= 1;
    checkpoint::save(&path, &ckpt).unwrap();
    assert!(err_text(&path).contains(&format!("has policy size {}, this build has {POLICY_SIZE}", POLICY_SIZE - 1)));

    // Weights of one shape under a header claiming another.
    let mut ckpt = trained_checkpoint();
    ckpt.header.network.channels += 4;
    checkpoint::save(&path, &ckpt).unwrap();
    let e = err_text(&path);
    assert!(e.contains("weights do not match its config") && e.contains("shape mismatch"), "{e}");

    // A head switched on in the header but absent from the weights.
    let mut ckpt = trained_checkpoint();
    let mut cfg = ckpt.header.network.clone();
    cfg.moves_left_head = false;
    ckpt.network = Network::seeded(&cfg, 1, &device);
    checkpoint::save(&path, &ckpt).unwrap();
    let e = err_text(&path);
    assert!(e.contains("weights do not match its config") && e.contains("Missing tensors"), "{e}");
}

#[test]
fn error_type_is_matchable() {
    let e = checkpoint::load("/nonexistent/x.ckpt", &backend::cpu_device()).unwrap_err();
    assert!(matches!(e, CheckpointError::Io { .. }));
}

#[test]
fn configs_parse_and_unknown_fields_are_rejected() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs");
    for name in [
        "net-tiny.toml",
        "net-cpu.toml",
        "net-cpu-gpool.toml",
        "net-cpu-capture.toml",
        "net-gpu.toml",
        "net-large.toml",
    ] {
        let cfg = NetConfig::load(format!("{dir}/{name}")).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(cfg.flops_per_position() > 0);
        assert_eq!(NetConfig::from_toml(&cfg.to_toml()).unwrap(), cfg);
    }
    let text = std::fs::read_to_string(format!("{dir}/net-tiny.toml")).unwrap();
    let e = NetConfig::from_toml(&format!("{text}\nblockz = 3\n")).unwrap_err().to_string();
    assert!(e.contains("unknown field `blockz`"), "{e}");
    assert!(!e.contains('\n'));
    let e = NetConfig::from_toml("blocks = 1\n").unwrap_err().to_string();
    assert!(e.contains("missing field `channels`"), "{e}");
    let e = NetConfig::from_toml(&text.replace("channels = 8", "channels = 0")).unwrap_err().to_string();
    assert!(e.contains("'channels' is 0, expected 1 to 1024"), "{e}");
}

/// Absurd sizes are refused before anything is allocated, each naming its field and range, and
/// the parameter count the limit is checked on is the network's own.
#[test]
fn network_sizes_are_checked_against_their_ranges_before_allocating() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs");
    let text = std::fs::read_to_string(format!("{dir}/net-tiny.toml")).unwrap();
    for (from, to, want) in [
        ("\nchannels = 8", "\nchannels = 100000000", "'channels' is 100000000, expected 1 to 1024"),
        ("\nblocks = 1", "\nblocks = 1000", "'blocks' is 1000, expected 0 to 64"),
        ("\nvalue_hidden = 16", "\nvalue_hidden = 99999999", "'value_hidden' is 99999999, expected 1 to 4096"),
    ] {
        let changed = text.replace(from, to);
        assert_ne!(changed, text, "{from}");
        let e = NetConfig::from_toml(&changed).unwrap_err().to_string();
        assert!(e.contains(want) && !e.contains('\n'), "{e}");
    }
    let mut huge = NetConfig::from_toml(&text).unwrap();
    (huge.channels, huge.blocks) = (1024, 64);
    let e = huge.validate().unwrap_err().to_string();
    assert!(
        e.contains("more than the 268435456 parameters a network may have") || e.contains("a network may have"),
        "{e}"
    );
    for name in ["net-tiny.toml", "net-cpu.toml", "net-cpu-gpool.toml", "net-cpu-capture.toml"] {
        let cfg = NetConfig::load(format!("{dir}/{name}")).unwrap();
        let net = Network::seeded(&cfg, 1, &backend::cpu_device());
        assert_eq!(burn::module::Module::num_params(&net) as u64, cfg.parameter_count(), "{name}");
    }
}

/// Priors over the legal moves (computed from the policy features on the host) equal the
/// softmax of the full policy's logits at those indices.
#[test]
fn masked_evaluation_matches_full_policy() {
    use nn::policy::{mask_and_softmax, NO_INDEX, NULL_PASS_INDEX};
    let device = backend::cpu_device();
    let (ckpt, _) = trained();
    let mut e = Inference::new(ckpt.network, &device);
    let b = 4;
    let x = inputs(3, b);
    let mut rng = ChaCha8Rng::seed_from_u64(99);
    let mut legal = Vec::new();
    let mut offsets = vec![0usize];
    for i in 0..b {
        let n = [200, 0, 3, 50][i];
        for _ in 0..n {
            legal.push(rng.gen_range(0..NULL_PASS_INDEX));
        }
        if n > 0 {
            legal.push(NULL_PASS_INDEX);
            legal.push(NO_INDEX);
        }
        offsets.push(legal.len());
    }
    let out = e.evaluate_masked(&x, b, &legal, &offsets);
    let priors = out.priors.to_vec();
    let wdl = out.wdl.to_vec();
    assert_eq!(priors.len(), legal.len());
    let full = e.evaluate(&x, b);
    assert_eq!(full.wdl, &wdl[..]);
    for i in 0..b {
        let (s, t) = (offsets[i], offsets[i + 1]);
        let mut expect = vec![0.0f32; t - s];
        mask_and_softmax(&full.policy_logits[i * POLICY_SIZE..(i + 1) * POLICY_SIZE], &legal[s..t], &mut expect);
        for (k, (p, q)) in priors[s..t].iter().zip(&expect).enumerate() {
            assert!((p - q).abs() <= 1e-5 * q.max(1e-3), "position {i} move {k}: {p} vs {q}");
        }
        if t > s {
            assert!((priors[s..t].iter().sum::<f32>() - 1.0).abs() < 1e-4);
            assert_eq!(priors[t - 1], 0.0, "NO_INDEX gets prior 0");
        }
    }
}

/// The checksum is XXH64 from `xxhash-rust` since the redesign (a hand-written one before):
/// the shipped checkpoint, written before the swap, still verifies, and the known vectors hold.
#[test]
fn checkpoints_written_before_the_xxhash_swap_still_verify() {
    use xxhash_rust::xxh64::xxh64;
    assert_eq!(xxh64(b"", 0), 0xEF46_DB37_51D8_E999);
    assert_eq!(xxh64(b"abc", 0), 0x44BC_2CF5_AD77_0999);
    let shipped = concat!(env!("CARGO_MANIFEST_DIR"), "/../checkpoints/tenjiku-cpu.ckpt");
    let ckpt = checkpoint::load(std::path::Path::new(shipped), &backend::cpu_device())
        .expect("the shipped checkpoint verifies");
    assert_eq!(ckpt.header.checksum, 0x3197_bab2_2803_9896, "the checksum `checkpoint info` showed before the swap");
}

/// A checkpoint of encoding version 1 (115 input planes, before the attack planes) loads as a
/// version-2 network that ignores the new planes: the same outputs as the old network on the
/// old planes, whatever the attack planes hold; its optimiser state is dropped (its input
/// moments have the old shape).
#[test]
fn encoding_1_checkpoints_load_widened_with_the_same_outputs() {
    use burn::tensor::{Tensor, TensorData};
    use nn::encoding::{ENCODING_VERSION, V1_PLANES};

    let tmp = tmpdir("v1");
    let dir = tmp.path();
    let path = dir.join("v1.ckpt");
    let cfg = tiny();
    let device = backend::cpu_device();
    device.seed(11);
    let old = Network::with_input_planes(&cfg, V1_PLANES, &device);
    assert_eq!(old.input_planes(), V1_PLANES);
    let mut header = Header::new(cfg.clone(), "standard");
    header.encoding_version = 1;
    header.num_planes = V1_PLANES;
    header.step = 42;
    checkpoint::save(&path, &Checkpoint { header, network: old.clone(), optimizer: Some(vec![1, 2, 3]) }).unwrap();

    let loaded = checkpoint::load(&path, &device).unwrap();
    assert_eq!(loaded.header.encoding_version, ENCODING_VERSION);
    assert_eq!(loaded.header.num_planes, NUM_PLANES);
    assert_eq!(loaded.header.step, 42);
    assert!(loaded.optimizer.is_none());
    assert_eq!(loaded.network.input_planes(), NUM_PLANES);

    // New-layout inputs with random attack planes; the old network sees planes 0..115 only.
    let b = 3;
    let x = inputs(5, b);
    let mut x_old = Vec::with_capacity(b * V1_PLANES * SQUARES);
    for i in 0..b {
        let at = i * NUM_PLANES * SQUARES;
        x_old.extend_from_slice(&x[at..at + V1_PLANES * SQUARES]);
    }
    assert!(x[V1_PLANES * SQUARES..NUM_PLANES * SQUARES].iter().any(|&v| v != 0.0));
    let old_out = old.forward(Tensor::from_data(TensorData::new(x_old, [b, V1_PLANES, 16, 16]), &device));
    let new_out = loaded.network.forward(Network::input_tensor(&x, b, &device));
    let a = old_out.wdl.into_data().convert::<f32>().try_to_vec::<f32>().unwrap();
    let n = new_out.wdl.into_data().convert::<f32>().try_to_vec::<f32>().unwrap();
    assert_eq!(a.len(), n.len());
    for (p, q) in a.iter().zip(&n) {
        assert!((p - q).abs() < 1e-5, "{p} vs {q}");
    }
    let a = old_out.moves.into_data().convert::<f32>().try_to_vec::<f32>().unwrap();
    let n = new_out.moves.into_data().convert::<f32>().try_to_vec::<f32>().unwrap();
    assert!(a.iter().zip(&n).all(|(p, q)| (p - q).abs() < 1e-4));

    // A version-1 header that claims the new plane count is a mismatch, not an upgrade.
    let mut header = Header::new(cfg, "standard");
    header.encoding_version = 1;
    checkpoint::save(&path, &Checkpoint { header, network: old, optimizer: None }).unwrap();
    let e = err_text(&path);
    assert!(e.contains(&format!("has encoding version 1, this build encodes version {ENCODING_VERSION}")), "{e}");
}

/// `average`: the mean of one network with itself is that network, bit for bit; the mean of two
/// is their element-wise mean (batch-norm statistics included) with the larger step, a parent
/// naming both and no optimiser state; a third network's outputs lie between; inputs that differ
/// in config or rules, or none at all, are one-line errors.
#[test]
fn checkpoints_average_element_wise() {
    let tmp = tmpdir("average");
    let dir = tmp.path();
    let device = backend::cpu_device();
    let (a, mut trainer) = trained();
    let data = Data::new();
    for _ in 0..3 {
        trainer.step(&data.batch());
    }
    let mut header = a.header.clone();
    header.step = trainer.steps();
    let b = Checkpoint { header, network: trainer.network(), optimizer: Some(trainer.optimizer_state()) };
    let (pa, pb) = (dir.join("a.ckpt"), dir.join("b.ckpt"));
    checkpoint::save(&pa, &a).unwrap();
    checkpoint::save(&pb, &b).unwrap();

    let x = inputs(13, 3);
    let same = checkpoint::average(&[pa.clone(), pa.clone()], &device).unwrap();
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
    let (o1, o2) = (outputs(a.network.clone(), &device, &x, 3), outputs(same.network, &device, &x, 3));
    assert_eq!(bits(&o1.0), bits(&o2.0), "a network averaged with itself is itself");
    assert_eq!(bits(&o1.1.concat()), bits(&o2.1.concat()));

    let mean = checkpoint::average(&[pa.clone(), pb.clone()], &device).unwrap();
    assert_eq!(mean.header.step, 5);
    assert!(mean.optimizer.is_none());
    let parent = mean.header.parent.clone().unwrap();
    assert!(parent.contains("a.ckpt (step 2)") && parent.contains("b.ckpt (step 5)"), "{parent}");
    let (pa_params, pb_params, pm) = (a.network.parameters(), b.network.parameters(), mean.network.parameters());
    assert_eq!(pm.len(), pa_params.len());
    let mut differing = 0;
    for ((x, y), m) in pa_params.iter().zip(&pb_params).zip(&pm) {
        assert_eq!(x.0, m.0, "shapes kept");
        for ((u, v), w) in x.1.iter().zip(&y.1).zip(&m.1) {
            assert!((w - (u + v) / 2.0).abs() <= 1e-6 * (1.0 + u.abs() + v.abs()), "{w} is the mean of {u} and {v}");
            differing += usize::from(u != v);
        }
    }
    assert!(differing > 100, "the two inputs differ ({differing} values)");
    // The batch-norm statistics are among the averaged values: training moved them.
    let stats = pa_params.iter().zip(&pb_params).filter(|(x, y)| x.0.len() == 1 && x.1 != y.1).count();
    assert!(stats > 0);

    // It saves and loads like any checkpoint.
    let pm_path = dir.join("mean.ckpt");
    checkpoint::save(&pm_path, &mean).unwrap();
    assert_eq!(checkpoint::load(&pm_path, &device).unwrap().network.parameters(), pm);

    // Mismatches.
    let one_line = |e: CheckpointError| {
        let s = e.to_string();
        assert!(!s.contains('\n'), "{s}");
        s
    };
    let mut other = trained_checkpoint();
    let mut cfg = other.header.network.clone();
    cfg.channels += 4;
    other.header.network = cfg.clone();
    other.network = Network::seeded(&cfg, 1, &device);
    let pc = dir.join("c.ckpt");
    checkpoint::save(&pc, &other).unwrap();
    let e = one_line(checkpoint::average(&[pa.clone(), pc.clone()], &device).unwrap_err());
    assert!(e.contains("c.ckpt cannot be averaged with") && e.contains("network config differs"), "{e}");
    let mut other = trained_checkpoint();
    other.header.rules = "house".into();
    checkpoint::save(&pc, &other).unwrap();
    let e = one_line(checkpoint::average(&[pa.clone(), pc.clone()], &device).unwrap_err());
    assert!(e.contains("rules preset differs"), "{e}");
    let e = one_line(checkpoint::average(&[pa.clone(), dir.join("missing.ckpt")], &device).unwrap_err());
    assert!(e.starts_with("cannot read checkpoint"), "{e}");
    let e = one_line(checkpoint::average(&[], &device).unwrap_err());
    assert!(e.contains("no checkpoint to average"), "{e}");
}
