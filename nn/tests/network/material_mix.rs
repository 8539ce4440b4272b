//! `NetEvaluator::set_material_mix`: the value the search sees blends the WDL head with the
//! material head exactly as documented, and bad weights are refused.

use engine::legal_moves;
use engine::{MoveTable, Position, Rules};
use nn::backend;
use nn::evaluator::NetEvaluator;
use nn::network::{NetConfig, Network};
use search::mcts::{EvalRequest, Evaluation, Evaluator};

fn net(material_head: bool) -> Network {
    let mut cfg = NetConfig::load(concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/net-tiny.toml")).unwrap();
    cfg.material_head = material_head;
    Network::seeded(&cfg, 3, &backend::cpu_device())
}

/// (value, draw) of the start position with material weight `w`, and the raw WDL value and
/// material output of the same network. The callers pass one network to every call: seeding
/// is per device, so networks seeded by tests running in parallel may differ.
fn evaluate(network: &Network, w: f32) -> (f32, f32, f32, f32) {
    let device = backend::cpu_device();
    let table = MoveTable::new(&Rules::default());
    let pos = Position::start();
    let moves = legal_moves(&pos, &table);
    let req = EvalRequest { position: &pos, table: &table, repetitions: 0, ply: 0, moves: &moves };
    let mut e = NetEvaluator::new(network.clone(), &device);
    e.set_material_mix(w).unwrap();
    let mut out = [Evaluation::default()];
    e.evaluate(&[req], &mut out);

    let mut input = vec![0.0; nn::encoding::INPUT_SIZE];
    let hist = nn::encoding::HistoryFeatures { repetitions: 0, ply: 0 };
    nn::encoding::encode(&pos, &table, &hist, &mut input);
    let mut raw = nn::inference::Inference::new(network.clone(), &device);
    let r = raw.evaluate(&input, 1);
    let wdl = r.wdl[0];
    (out[0].value, out[0].draw, wdl[0] - wdl[2], r.material[0])
}

#[test]
fn material_mix_blends_the_value_and_material_heads() {
    let network = net(true);
    let (v0, d0, wdl_value, material) = evaluate(&network, 0.0);
    assert!((v0 - wdl_value).abs() < 1e-5, "w = 0 is the WDL head alone: {v0} vs {wdl_value}");
    let (v1, d1, _, _) = evaluate(&network, 1.0);
    assert!((v1 - material.tanh()).abs() < 1e-5, "w = 1 is tanh(material): {v1} vs {}", material.tanh());
    let (vh, _, _, _) = evaluate(&network, 0.25);
    let want = 0.75 * wdl_value + 0.25 * material.tanh();
    assert!((vh - want).abs() < 1e-5, "w = 0.25: {vh} vs {want}");
    assert_eq!(d0, d1, "the draw probability is the WDL head's whatever the mix");
}

#[test]
fn material_mix_refuses_bad_weights() {
    let device = backend::cpu_device();
    let mut e = NetEvaluator::new(net(true), &device);
    for w in [-0.1, 1.5, f32::NAN] {
        let err = e.set_material_mix(w).unwrap_err().to_string();
        assert!(err.contains("between 0 and 1"), "{err}");
    }
    let mut e = NetEvaluator::new(net(false), &device);
    assert!(e.set_material_mix(0.0).is_ok(), "0 needs no material head");
    let err = e.set_material_mix(0.5).unwrap_err().to_string();
    assert!(err.contains("material head"), "{err}");
}
