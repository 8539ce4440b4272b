//! `QsearchBlend` (the `qsearch_mix=W` spec key): the value the search sees blends the inner
//! evaluator's value with `tanh(q / 600)` of the alpha-beta quiescence score exactly as
//! documented, the draw share shrinks by the same weight, and bad weights are refused.

use engine::legal_moves;
use engine::{MoveTable, Position, Rules};
use search::alphabeta::Quiescer;
use search::mcts::{EvalRequest, Evaluation, Evaluator, QsearchBlend, QSEARCH_SCALE_CP};
use std::sync::Arc;

/// A fixed answer: value 0.3, draw 0.2, uniform priors.
struct Fixed;

impl Evaluator for Fixed {
    fn evaluate(&mut self, requests: &[EvalRequest<'_>], out: &mut [Evaluation]) {
        for (r, o) in requests.iter().zip(out.iter_mut()) {
            o.priors = vec![1.0 / r.moves.len() as f32; r.moves.len()];
            o.value = 0.3;
            o.draw = 0.2;
        }
    }
}

/// Black rook a2 facing an undefended White gold a9, Black to move: the quiescence score
/// (rook takes gold) is far from 0.
fn hanging_gold() -> Position {
    let empty = |n: usize| vec!["16"; n].join("/");
    Position::from_fen(&format!("k15/{}/g15/{}/R15/15K b", empty(6), empty(6))).unwrap()
}

fn evaluate(pos: &Position, w: f32) -> (f32, f32) {
    let table = MoveTable::new(&Rules::default());
    let moves = legal_moves(pos, &table);
    let req = EvalRequest { position: pos, table: &table, repetitions: 0, ply: 0, moves: &moves };
    let mut e = QsearchBlend::new(Fixed, w).unwrap();
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
    assert_eq!(evaluate(&pos, 0.0), (0.3, 0.2), "w = 0 is the inner value alone");
    let (v1, d1) = evaluate(&pos, 1.0);
    assert!((v1 - qv).abs() < 1e-6, "w = 1 is the quiescence value alone: {v1} vs {qv}");
    assert_eq!(d1, 0.0, "w = 1 leaves no draw share");
    let (vh, dh) = evaluate(&pos, 0.25);
    assert!((vh - (0.75 * 0.3 + 0.25 * qv)).abs() < 1e-6, "w = 0.25: {vh}");
    assert!((dh - 0.75 * 0.2).abs() < 1e-7, "draw scaled: {dh}");
    // The blended value is still a probability split: win and loss stay in [0, 1].
    let wdl = Evaluation { value: vh, draw: dh, ..Evaluation::default() }.wdl();
    assert!(wdl.iter().all(|p| (0.0..=1.0).contains(p)), "{wdl:?}");
}

#[test]
fn qsearch_mix_refuses_bad_weights() {
    for w in [-0.1, 1.5, f32::NAN] {
        let err = QsearchBlend::new(Fixed, w).err().unwrap();
        assert!(err.contains("qsearch_mix") && err.contains("between 0 and 1"), "{err}");
    }
    assert!(QsearchBlend::new(Fixed, 0.0).is_ok());
}
