//! [`QsearchBlend`]: an evaluator wrapper that blends the alpha-beta engine's quiescence score
//! of each leaf into another evaluator's value (the `qsearch_mix=W` spec key), a hybrid search.

use super::{EvalRequest, Evaluation, Evaluator};
use crate::alphabeta::Quiescer;
use std::sync::Arc;

/// Centipawns of quiescence score per unit of `atanh(value)` (`tanh(q / 600)`: a pawn-and-a-bit
/// is ±0.17, a Lion (≈ 1,500 cp) ±0.85); the scale of the bootstrap teacher's value labels.
pub const QSEARCH_SCALE_CP: f32 = 600.0;

/// `value = (1 − w) · value + w · tanh(q / 600)`, where `q` is the side to move's score in
/// centipawns after the captures and recaptures the leaf offers are played out ([`Quiescer`]);
/// the draw probability is scaled by `1 − w`. A network's value learns material mostly from
/// games decided by a royal hunt and misjudges positions where a piece hangs; the quiescence
/// search settles those. A leaf costs a quiescence search besides its share of the inner
/// evaluator's call.
pub struct QsearchBlend<E> {
    inner: E,
    weight: f32,
    /// Made at the first evaluation, for the rules of the positions asked about.
    quiescer: Option<Quiescer>,
}

impl<E: Evaluator> QsearchBlend<E> {
    /// Wrap `inner` with weight `w` in `[0, 1]`; `Err` names the weight otherwise.
    pub fn new(inner: E, w: f32) -> Result<Self, String> {
        if !(0.0..=1.0).contains(&w) {
            return Err(format!("qsearch_mix must be between 0 and 1, got {w}"));
        }
        Ok(QsearchBlend { inner, weight: w, quiescer: None })
    }

    /// The wrapped evaluator.
    pub fn inner(&self) -> &E {
        &self.inner
    }
}

impl<E: Evaluator> Evaluator for QsearchBlend<E> {
    fn evaluate(&mut self, requests: &[EvalRequest<'_>], out: &mut [Evaluation]) {
        self.inner.evaluate(requests, out);
        let w = self.weight;
        if w == 0.0 {
            return;
        }
        for (r, o) in requests.iter().zip(out.iter_mut()) {
            let q = self.quiescer.get_or_insert_with(|| Quiescer::new(Arc::new(r.table.clone())));
            let cp = q.score(r.position, r.table);
            o.value = (1.0 - w) * o.value + w * (cp as f32 / QSEARCH_SCALE_CP).tanh();
            o.draw *= 1.0 - w;
        }
    }
}
