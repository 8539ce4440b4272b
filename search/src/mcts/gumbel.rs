//! Gumbel root search (Danihelka et al., "Policy improvement by planning with Gumbel", ICLR
//! 2022), for small simulation budgets.
//!
//! * **Gumbel-top-k**: `m` root actions are sampled without replacement by taking the `m`
//!   largest `g(a) + logit(a)`, `g` i.i.d. Gumbel(0, 1) (no noise, `g = 0`, outside
//!   self-play: then the top-`m` priors);
//! * **sequential halving** spreads the `n` simulations over them: the phases follow `mctx`'s
//!   table (phase with `k` actions gives each `max(1, ⌊n / (⌈log₂ m⌉ · k)⌋)` visits, then
//!   `k ← max(2, k/2)`, until `n` simulations are issued); at each phase start the `k` best by
//!   `g + logit + σ(q̂)` are kept. A phase's visits are issued in batches (virtual loss below
//!   the forced root action); phases are barriers;
//! * **completed Q**: `q̂(a)` is the child's mean value if visited, else the mixed value
//!   `v_mix = (v̂ + N · Σ_visited π(a) q(a) / Σ_visited π(a)) / (1 + N)`; values are min–max
//!   rescaled over the root's actions and `σ(q̂) = (c_visit + max_b N(b)) · c_scale · q̂`;
//! * the **move** is the action with the most halving visits (among them the best score);
//! * the **policy target** is the improved policy `softmax(logit + σ(q̂))` over all legal moves.
//!
//! Below the root the search uses PUCT (`puct.rs`). With tree reuse the reused visits count in
//! `q̂` and `max N`, while the halving schedule spends `n` new simulations.

use super::tree::{Tree, NONE};
use super::MctsConfig;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// The sequential-halving phases for `m` considered actions and `n` simulations:
/// `(actions kept, visits each)`.
pub fn halving_phases(m: usize, n: u32) -> Vec<(usize, u32)> {
    if m <= 1 {
        return vec![(1, n.max(1))];
    }
    let log2m = (m as f64).log2().ceil() as u32;
    let mut phases = Vec::new();
    let (mut k, mut total) = (m, 0u64);
    while total < n as u64 {
        let extra = (n / (log2m * k as u32)).max(1);
        phases.push((k, extra));
        total += extra as u64 * k as u64;
        k = (k / 2).max(2);
    }
    phases
}

/// Gumbel state of the root during one search.
pub(crate) struct GumbelState {
    first: usize,
    logits: Vec<f32>,
    noise: Vec<f32>,
    /// Simulations issued by this search to each root action (relative edge index).
    sh_visits: Vec<u32>,
    considered: Vec<usize>,
    phases: Vec<(usize, u32)>,
    phase: usize,
    schedule: VecDeque<usize>,
    budget: u32,
    issued: u32,
}

impl GumbelState {
    pub fn new(tree: &Tree, m: usize, budget: u32, noise: bool, rng: &mut ChaCha8Rng) -> GumbelState {
        let r = tree.edges(0);
        let k = r.len();
        let logits: Vec<f32> = r.clone().map(|e| tree.prior(e).max(1e-8).ln()).collect();
        let noise: Vec<f32> = (0..k)
            .map(|_| {
                if noise {
                    let u: f64 = rng.gen_range(f64::MIN_POSITIVE..1.0);
                    -(-u.ln()).ln() as f32
                } else {
                    0.0
                }
            })
            .collect();
        let m = m.clamp(1, k.max(1));
        let mut order: Vec<usize> = (0..k).collect();
        order.sort_by(|&a, &b| (noise[b] + logits[b]).total_cmp(&(noise[a] + logits[a])).then(a.cmp(&b)));
        order.truncate(m);
        GumbelState {
            first: r.start,
            logits,
            noise,
            sh_visits: vec![0; k],
            considered: order,
            phases: halving_phases(m, budget),
            phase: 0,
            schedule: VecDeque::new(),
            budget,
            issued: 0,
        }
    }

    /// The next root edge (absolute index) of the current phase.
    pub fn next(&mut self) -> Option<usize> {
        let a = self.schedule.pop_front()?;
        self.sh_visits[a] += 1;
        self.issued += 1;
        Some(self.first + a)
    }

    /// Give back an edge returned by [`GumbelState::next`] whose descent was abandoned.
    pub fn unissue(&mut self, e: usize) {
        let a = e - self.first;
        self.sh_visits[a] -= 1;
        self.issued -= 1;
        self.schedule.push_front(a);
    }

    /// Whether simulations remain to be issued.
    pub fn has_more(&self) -> bool {
        !self.schedule.is_empty() || (self.issued < self.budget && self.phase < self.phases.len())
    }

    /// Start the next phase (call with nothing in flight): keep the best `k` actions and
    /// schedule their visits. False when the budget is spent.
    pub fn advance_phase(&mut self, tree: &Tree, cfg: &MctsConfig) -> bool {
        if self.issued >= self.budget || self.phase >= self.phases.len() {
            return false;
        }
        let (k, extra) = self.phases[self.phase];
        self.phase += 1;
        let scores = self.scores(tree, cfg);
        self.considered.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
        self.considered.truncate(k.max(1));
        let left = (self.budget - self.issued) as usize;
        'fill: for _ in 0..extra {
            for &a in &self.considered {
                if self.schedule.len() >= left {
                    break 'fill;
                }
                self.schedule.push_back(a);
            }
        }
        !self.schedule.is_empty()
    }

    /// `σ(q̂(a))` for every root action (relative index).
    pub fn sigma(&self, tree: &Tree, cfg: &MctsConfig) -> Vec<f32> {
        let root = tree.node(0);
        let k = self.logits.len();
        let mut q = vec![f32::NAN; k];
        let (mut sum_n, mut sum_p, mut weighted, mut max_n) = (0u64, 0.0f64, 0.0f64, 0u32);
        for (a, qa) in q.iter_mut().enumerate() {
            let e = self.first + a;
            let c = tree.child(e);
            if c == NONE || tree.node(c).visits == 0 {
                continue;
            }
            let n = tree.node(c);
            *qa = n.q();
            let p = tree.prior(e).max(1e-8) as f64;
            sum_n += n.visits as u64;
            sum_p += p;
            weighted += p * *qa as f64;
            max_n = max_n.max(n.visits);
        }
        let raw = root.raw_value as f64;
        let v_mix =
            if sum_n > 0 && sum_p > 0.0 { (raw + sum_n as f64 * weighted / sum_p) / (1.0 + sum_n as f64) } else { raw }
                as f32;
        for qa in q.iter_mut() {
            if qa.is_nan() {
                *qa = v_mix;
            }
        }
        let lo = q.iter().copied().fold(f32::INFINITY, f32::min);
        let hi = q.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let scale = (cfg.gumbel_c_visit + max_n as f32) * cfg.gumbel_c_scale;
        let span = (hi - lo).max(1e-8);
        q.iter().map(|&x| scale * (x - lo) / span).collect()
    }

    fn scores(&self, tree: &Tree, cfg: &MctsConfig) -> Vec<f32> {
        let s = self.sigma(tree, cfg);
        (0..self.logits.len()).map(|a| self.noise[a] + self.logits[a] + s[a]).collect()
    }

    /// The move to play (absolute edge index): among the considered actions with the most
    /// halving visits, the best `g + logit + σ(q̂)`.
    pub fn best(&self, tree: &Tree, cfg: &MctsConfig) -> usize {
        let scores = self.scores(tree, cfg);
        let most = self.considered.iter().map(|&a| self.sh_visits[a]).max().unwrap_or(0);
        let a = self
            .considered
            .iter()
            .copied()
            .filter(|&a| self.sh_visits[a] == most)
            .max_by(|&a, &b| scores[a].total_cmp(&scores[b]).then(b.cmp(&a)))
            .unwrap_or(0);
        self.first + a
    }

    /// The improved policy `softmax(logit + σ(q̂))` over all root actions (relative index).
    pub fn improved_policy(&self, tree: &Tree, cfg: &MctsConfig) -> Vec<f32> {
        let s = self.sigma(tree, cfg);
        let z: Vec<f32> = self.logits.iter().zip(&s).map(|(l, s)| l + s).collect();
        let mx = z.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let e: Vec<f32> = z.iter().map(|x| (x - mx).exp()).collect();
        let sum: f32 = e.iter().sum();
        e.iter().map(|x| x / sum).collect()
    }
}

/// A Dirichlet(α, …, α) sample of `n` components: normalised Gamma(α, 1) draws (`rand_distr`);
/// if every draw underflows to 0 (a tiny α), one component chosen at random gets all of it.
pub(crate) fn dirichlet(rng: &mut ChaCha8Rng, alpha: f64, n: usize) -> Vec<f64> {
    let gamma = match rand_distr::Gamma::new(alpha, 1.0) {
        Ok(g) => g,
        Err(_) => return vec![1.0 / n as f64; n], // α not positive and finite: no noise shape
    };
    let mut v: Vec<f64> = (0..n).map(|_| rand_distr::Distribution::sample(&gamma, rng)).collect();
    let sum: f64 = v.iter().sum();
    if sum > 0.0 && sum.is_finite() {
        v.iter_mut().for_each(|x| *x /= sum);
    } else {
        v.iter_mut().for_each(|x| *x = 0.0);
        let i = rng.gen_range(0..n);
        v[i] = 1.0;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halving_table_matches_mctx() {
        // mctx's get_sequence_of_considered_visits(16, 64): 16×1, 8×2, 4×4, 2×8.
        assert_eq!(halving_phases(16, 64), vec![(16, 1), (8, 2), (4, 4), (2, 8)]);
        assert_eq!(halving_phases(16, 16), vec![(16, 1)]);
        assert_eq!(halving_phases(1, 5), vec![(1, 5)]);
        let p = halving_phases(4, 200);
        assert_eq!(p[0], (4, 25));
        assert!(p.iter().map(|&(k, e)| k as u32 * e).sum::<u32>() >= 200);
    }

    #[test]
    fn dirichlet_samples_are_distributions_with_the_right_mean() {
        use rand::SeedableRng;
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for (alpha, n) in [(0.05, 40), (0.3, 10), (2.0, 5)] {
            let mut mean = vec![0.0; n];
            let draws = 4000;
            for _ in 0..draws {
                let v = dirichlet(&mut rng, alpha, n);
                assert!((v.iter().sum::<f64>() - 1.0).abs() < 1e-9 && v.iter().all(|&x| x >= 0.0));
                mean.iter_mut().zip(&v).for_each(|(m, x)| *m += x / draws as f64);
            }
            assert!(mean.iter().all(|m| (m - 1.0 / n as f64).abs() < 0.25 / n as f64), "{alpha}: {mean:?}");
        }
    }
}
