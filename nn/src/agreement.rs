//! How closely two evaluators agree: the same network on two backends (a GPU against `flex`)
//! or in two precisions (bf16 against f32), over a corpus of positions from seeded random games.
//! `tenjiku bench outputs` prints it; the GPU check script and the precision tests read it.
//!
//! Compared per position, as the search sees them ([`NetEvaluator`]: priors over the legal
//! moves, value `win − loss`, draw probability): the largest and mean absolute value
//! difference, the largest prior difference, and whether the move of highest prior is the same
//! (top-1 agreement).

use std::time::Instant;

use engine::{generate, Game, MoveList, MoveTable, Position};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use search::mcts::{EvalRequest, Evaluation, Evaluator};

use crate::evaluator::NetEvaluator;

/// One position of a corpus with the history features its game gives it.
#[derive(Clone, Debug)]
pub struct CorpusPosition {
    pub position: Position,
    pub repetitions: u32,
    pub ply: u32,
}

/// Random games in which a side that can take the opponent's last royal does so; each ply is
/// kept with probability 1/2 until `count` positions are collected. The same `seed` gives the
/// same corpus. Games that end or reach `max_plies` start again from the start position.
pub fn corpus(table: &MoveTable, seed: u64, count: usize, max_plies: usize) -> Vec<CorpusPosition> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let table = std::sync::Arc::new(table.clone());
    let mut out = Vec::with_capacity(count);
    let mut list = MoveList::new();
    while out.len() < count {
        let mut game = Game::new(table.clone(), Position::start());
        while out.len() < count && !game.is_over() && game.ply_count() < max_plies {
            list.clear();
            generate(game.position(), &table, &mut list);
            if list.is_empty() {
                break;
            }
            if rng.gen_bool(0.5) {
                out.push(CorpusPosition {
                    position: *game.position(),
                    repetitions: game.repetitions() as u32,
                    ply: game.ply_count() as u32,
                });
            }
            let legal = game.legal_moves();
            if legal.is_empty() {
                break;
            }
            let mv = legal[rng.gen_range(0..legal.len())];
            if game.play(mv).is_err() {
                break;
            }
        }
    }
    out
}

/// What [`compare`] measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Agreement {
    pub positions: usize,
    /// Positions whose move of highest prior is the same in both.
    pub top1_same: usize,
    /// Largest and mean `|value_a − value_b|` (value = win − loss, −1 .. 1).
    pub max_value_diff: f32,
    pub mean_value_diff: f64,
    /// Largest `|draw_a − draw_b|`.
    pub max_draw_diff: f32,
    /// Largest difference of one move's prior.
    pub max_prior_diff: f32,
    /// Seconds each evaluator spent (after a warm-up batch).
    pub secs: [f64; 2],
}

impl Agreement {
    /// Share of positions with the same top move.
    pub fn top1_agreement(&self) -> f64 {
        if self.positions == 0 {
            1.0
        } else {
            self.top1_same as f64 / self.positions as f64
        }
    }

    /// Largest difference of any output (value, draw, prior).
    pub fn max_diff(&self) -> f32 {
        self.max_value_diff.max(self.max_draw_diff).max(self.max_prior_diff)
    }
}

/// Evaluate `corpus` with `a` and `b` in batches of `batch` and compare the outputs.
pub fn compare(
    a: &mut NetEvaluator,
    b: &mut NetEvaluator,
    table: &MoveTable,
    corpus: &[CorpusPosition],
    batch: usize,
) -> Agreement {
    let batch = batch.max(1);
    let mut moves: Vec<Vec<engine::Move>> = Vec::with_capacity(corpus.len());
    let mut list = MoveList::new();
    for c in corpus {
        list.clear();
        generate(&c.position, table, &mut list);
        moves.push(list.as_slice().to_vec());
    }
    let requests: Vec<EvalRequest<'_>> = corpus
        .iter()
        .zip(&moves)
        .map(|(c, m)| EvalRequest { position: &c.position, table, repetitions: c.repetitions, ply: c.ply, moves: m })
        .collect();
    // Warm up both (first-use compilation, autotune) on one batch.
    let warm = &requests[..batch.min(requests.len())];
    let mut scratch = vec![Evaluation::default(); warm.len()];
    a.evaluate(warm, &mut scratch);
    b.evaluate(warm, &mut scratch);
    let mut out_a = vec![Evaluation::default(); requests.len()];
    let mut out_b = vec![Evaluation::default(); requests.len()];
    let mut secs = [0.0; 2];
    for (k, (e, out)) in [(&mut *a, &mut out_a), (&mut *b, &mut out_b)].into_iter().enumerate() {
        let t = Instant::now();
        for (r, o) in requests.chunks(batch).zip(out.chunks_mut(batch)) {
            e.evaluate(r, o);
        }
        secs[k] = t.elapsed().as_secs_f64();
    }
    let mut ag = Agreement { positions: requests.len(), secs, ..Agreement::default() };
    let mut sum = 0.0f64;
    // A non-finite output counts as an infinite difference (`f32::max` would skip a NaN).
    let diff = |p: f32, q: f32| {
        let d = (p - q).abs();
        if d.is_finite() {
            d
        } else {
            f32::INFINITY
        }
    };
    for (x, y) in out_a.iter().zip(&out_b) {
        let dv = diff(x.value, y.value);
        sum += dv as f64;
        ag.max_value_diff = ag.max_value_diff.max(dv);
        ag.max_draw_diff = ag.max_draw_diff.max(diff(x.draw, y.draw));
        if x.priors.len() != y.priors.len() {
            ag.max_prior_diff = f32::INFINITY;
        }
        for (p, q) in x.priors.iter().zip(&y.priors) {
            ag.max_prior_diff = ag.max_prior_diff.max(diff(*p, *q));
        }
        if argmax(&x.priors) == argmax(&y.priors) {
            ag.top1_same += 1;
        }
    }
    ag.mean_value_diff = if ag.positions > 0 { sum / ag.positions as f64 } else { 0.0 };
    ag
}

/// Index of the largest value (the first of equals); `None` when empty.
fn argmax(v: &[f32]) -> Option<usize> {
    v.iter()
        .enumerate()
        .fold(None, |best, (i, &x)| match best {
            Some((_, y)) if y >= x => best,
            _ => Some((i, x)),
        })
        .map(|(i, _)| i)
}
