//! `NetEvaluator::set_qsearch_mix`: the value the search sees blends the network's value with
//! `tanh(q / 600)` of the alpha-beta quiescence score exactly as documented, the draw share
//! shrinks by the same weight, and bad weights are refused.

use engine::alphabeta::Quiescer;
use engine::mcts::{EvalRequest, Evaluation, Evaluator};
use engine::movegen::legal_moves;
use engine::{MoveTable, Position, Rules};
use nn::backend;
use nn::network::{NetConfig, Network};
use nn::search::{NetEvaluator, QSEARCH_SCALE_CP};
use std::sync::Arc;

fn net() -> Network {
    let cfg = NetConfig::load(concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/net-tiny.toml")).unwrap();
    Network::seeded(&cfg, 3, &backend::cpu_device())
}

/// Black rook a2 facing an undefended White gold a9, Black to move: the quiescence score
/// (rook takes gold) is far from 0.
fn hanging_gold() -> Position {
    let empty = |n: usize| vec!["16"; n].join("/");
    Position::from_fen(&format!("k15/{}/g15/{}/R15/15K b", empty(6), empty(6))).unwrap()
}

/// (value, draw) of `pos` with quiescence weight `w` (one network for every call: seeding is
/// per device, so networks seeded by tests running in parallel may differ).
fn evaluate(network: &Network, pos: &Position, w: f32) -> (f32, f32) {
    let table = MoveTable::new(&Rules::default());
    let moves = legal_moves(pos, &table);
    let req = EvalRequest { position: pos, table: &table, repetitions: 0, ply: 0, moves: &moves };
    let mut e = NetEvaluator::new(network.clone(), &backend::cpu_device());
    e.set_qsearch_mix(w).unwrap();
    let mut out = [Evaluation::default()];
    e.evaluate(&[req], &mut out);
    (out[0].value, out[0].draw)
}

#[test]
fn qsearch_mix_blends_the_value_with_the_quiescence_score() {
    let pos = hanging_gold();
    let table = Arc::new(MoveTable::new(&Rules::default()));
    let q = Quiescer::new(table.clone()).score(&pos, &table);
    assert!(q > 300, "Black wins the gold: {q}");
    let qv = (q as f32 / QSEARCH_SCALE_CP).tanh();
    let network = net();
    let (v0, d0) = evaluate(&network, &pos, 0.0);
    let (v1, d1) = evaluate(&network, &pos, 1.0);
    assert!((v1 - qv).abs() < 1e-5, "w = 1 is the quiescence value alone: {v1} vs {qv}");
    assert_eq!(d1, 0.0, "w = 1 leaves no draw share");
    let (vh, dh) = evaluate(&network, &pos, 0.25);
    assert!((vh - (0.75 * v0 + 0.25 * qv)).abs() < 1e-5, "w = 0.25: {vh}");
    assert!((dh - 0.75 * d0).abs() < 1e-6, "draw scaled: {dh} vs {d0}");
    // The blended value is still a probability split: win and loss stay in [0, 1].
    let wdl = Evaluation { value: vh, draw: dh, ..Evaluation::default() }.wdl();
    assert!(wdl.iter().all(|p| (0.0..=1.0).contains(p)), "{wdl:?}");
}

#[test]
fn qsearch_mix_refuses_bad_weights() {
    let mut e = NetEvaluator::new(net(), &backend::cpu_device());
    for w in [-0.1, 1.5, f32::NAN] {
        let err = e.set_qsearch_mix(w).unwrap_err();
        assert!(err.contains("qsearch_mix") && err.contains("between 0 and 1"), "{err}");
    }
    assert!(e.set_qsearch_mix(0.0).is_ok());
}
