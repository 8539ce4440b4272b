//! PUCT selection and edge ordering.
//!
//! Score of an edge: `Q + c(N) · P · √N / (1 + n)`, `c(N) = cpuct + cpuct_factor ·
//! ln((N + cpuct_base) / cpuct_base)`, where `N` counts the parent's visits and `n` the
//! child's, both with the visits in flight (virtual loss: each counts as a visit worth
//! `-virtual_loss` to the mover). An unvisited edge gets first-play urgency: the parent's Q
//! less `fpu_reduction · √(prior mass of the visited children)`, never below -1. A child that
//! is a proven loss for the mover (a terminal node won by its side to move) is only chosen when
//! every alternative is proven lost too.
//!
//! Away from the root the edges are ordered by prior when the node is expanded (the first
//! [`SORTED_PREFIX`] fully, the rest once that many children exist), and children are created
//! in that order, so a descent scores only the created children and the first uncreated edge.
//! At the root ([`RootSel`]) the same is done with the noised priors in a separate order.

use super::tree::{prob_to_f16, Edge, NodeState, Tree, NONE};
use super::MctsConfig;
/// Edges ordered by prior when a node is expanded; the rest only once that many children
/// exist (most nodes never get there), so expansion costs O(moves), not O(moves · log moves).
pub(crate) const SORTED_PREFIX: usize = 16;

/// Normalise `priors` (uniform if unusable) and store them as f16, the node's edges reordered
/// so that the first [`SORTED_PREFIX`] hold the highest priors in decreasing order (ties in
/// generation order) and the rest none higher. O(moves): the top entries are collected in a
/// small sorted buffer and swapped into place.
pub(crate) fn set_priors(tree: &mut Tree, node: u32, priors: &[f32]) {
    let r = tree.edges(node);
    let n = r.len();
    assert_eq!(priors.len(), n, "the evaluator returned {} priors for {} moves", priors.len(), n);
    let sum: f32 = priors.iter().map(|&p| if p.is_finite() { p.max(0.0) } else { 0.0 }).sum();
    let uniform = !(sum > 0.0 && sum.is_finite());
    let inv = if uniform { 0.0 } else { 1.0 / sum };
    let mut top = [0u32; SORTED_PREFIX];
    let mut len = 0usize;
    let edges = &mut tree.edges[r.clone()];
    for (i, (&p, e)) in priors.iter().zip(edges.iter_mut()).enumerate() {
        let p = if uniform {
            1.0 / n as f32
        } else if p.is_finite() {
            (p.max(0.0) * inv).min(1.0)
        } else {
            0.0
        };
        let b = prob_to_f16(p);
        e.prior = b;
        let k = key(b, i);
        if len == SORTED_PREFIX && k >= top[len - 1] {
            continue;
        }
        let mut j = len.min(SORTED_PREFIX - 1);
        while j > 0 && top[j - 1] > k {
            top[j] = top[j - 1];
            j -= 1;
        }
        top[j] = k;
        len = (len + 1).min(SORTED_PREFIX);
    }
    // Swap the top entries into place, following the ones that an earlier swap displaced.
    let mut pos = [0usize; SORTED_PREFIX];
    for j in 0..len {
        pos[j] = (top[j] & 0xffff) as usize;
    }
    for j in 0..len {
        let p = pos[j];
        if p != j {
            edges.swap(j, p);
            if let Some(l) = (j + 1..len).find(|&l| pos[l] == j) {
                pos[l] = p;
            }
        }
    }
}

/// Sort key: higher prior first, then lower offset (priors are non-negative, so their f16
/// bits order like the values).
#[inline]
fn key(prior_bits: u16, offset: usize) -> u32 {
    ((0xffff - prior_bits as u32) << 16) | offset as u32
}

/// Reorder the edges of `r` as `keys` say (`key(prior, offset in r)`).
fn apply_order(tree: &mut Tree, r: std::ops::Range<usize>, keys: &[u32], scratch: &mut Vec<Edge>) {
    scratch.clear();
    scratch.extend(keys.iter().map(|&k| tree.edges[r.start + (k & 0xffff) as usize]));
    tree.edges[r].copy_from_slice(scratch);
}

/// Sort the (uncreated) edges after the first [`SORTED_PREFIX`] of `node` by prior.
pub(crate) fn sort_tail(tree: &mut Tree, node: u32, keys: &mut Vec<u32>, scratch: &mut Vec<Edge>) {
    let r = tree.edges(node);
    let tail = r.start + SORTED_PREFIX..r.end;
    debug_assert!(tree.edges[tail.clone()].iter().all(|e| e.child == NONE));
    keys.clear();
    keys.extend(tree.edges[tail.clone()].iter().enumerate().map(|(i, e)| key(e.prior, i)));
    keys.sort_unstable();
    apply_order(tree, tail, keys, scratch);
}

#[inline]
pub(crate) fn cpuct(cfg: &MctsConfig, n: u32) -> f32 {
    cfg.cpuct + cfg.cpuct_factor * ((n as f32 + cfg.cpuct_base) / cfg.cpuct_base).ln()
}

/// Selection penalty of a child that is a proven loss for the mover (a terminal node won by
/// its side to move): it is only chosen when every alternative is proven lost too.
const PROVEN_LOSS: f32 = 1000.0;

/// Q of a created child from its parent's side to move, with virtual loss (a proven loss for
/// the mover is pushed below everything unproven).
#[inline]
fn child_q(tree: &Tree, c: u32, vl: f32) -> (f32, u32) {
    let n = tree.node(c);
    let nn = n.visits + n.vloss as u32;
    let q = if nn == 0 { 0.0 } else { (n.value_sum - vl * n.vloss as f32) / nn as f32 };
    let penalty = if n.state == NodeState::Terminal && n.term > 0 { PROVEN_LOSS } else { 0.0 };
    (q - penalty, nn)
}

/// First-play urgency: the parent's Q less `fpu_reduction · √(visited prior mass)`, never
/// below a loss.
#[inline]
fn fpu(parent_q: f32, cfg: &MctsConfig, visited_policy: f32) -> f32 {
    (parent_q - cfg.fpu_reduction * visited_policy.sqrt()).max(-1.0)
}

/// PUCT away from the root: children are created in prior order, so only the created prefix
/// and the first uncreated edge (the best unvisited one) need scoring.
pub(crate) fn select_inner(tree: &Tree, node: u32, cfg: &MctsConfig) -> usize {
    let n = tree.node(node);
    let first = n.first_edge as usize;
    let created = n.n_created as usize;
    let parent_n = n.visits + n.vloss as u32;
    // The first uncreated edge, loaded before the children so that the misses overlap.
    let candidate = tree.edges.get(first + created).filter(|_| created < n.num_edges as usize).map(|e| e.prior());
    let cs = cpuct(cfg, parent_n) * (parent_n.max(1) as f32).sqrt();
    let (mut best, mut best_score, mut visited_policy) = (first, f32::NEG_INFINITY, 0.0f32);
    for (i, edge) in tree.edges[first..first + created].iter().enumerate() {
        let p = edge.prior();
        let (q, nn) = child_q(tree, edge.child, cfg.virtual_loss);
        if tree.node(edge.child).visits > 0 {
            visited_policy += p;
        }
        let s = q + cs * p / (1 + nn) as f32;
        if s > best_score {
            best_score = s;
            best = first + i;
        }
    }
    if let Some(p) = candidate {
        if fpu(-n.q(), cfg, visited_policy) + cs * p > best_score {
            best = first + created;
        }
    }
    best
}

/// PUCT at the root, where the priors carry noise and children are not created in prior
/// order (Gumbel, tree reuse): the created children are scored, plus the uncreated edge with
/// the highest (noised) prior — O(children), not O(moves), per descent.
#[derive(Default)]
pub(crate) struct RootSel {
    /// Noised prior per root edge (relative index).
    priors: Vec<f32>,
    /// Root edges (absolute) by decreasing noised prior.
    order: Vec<u32>,
    /// Root edges with a child.
    with_child: Vec<u32>,
    /// First entry of `order` without a child.
    next: usize,
}

impl RootSel {
    pub(crate) fn init(&mut self, tree: &Tree, priors: Vec<f32>) {
        let r = tree.edges(0);
        self.order.clear();
        self.order.extend(r.clone().map(|e| e as u32));
        self.order
            .sort_by(|&a, &b| priors[b as usize - r.start].total_cmp(&priors[a as usize - r.start]).then(a.cmp(&b)));
        self.priors = priors;
        self.with_child.clear();
        self.with_child.extend(r.filter(|&e| tree.child(e) != NONE).map(|e| e as u32));
        self.next = 0;
        self.skip_created(tree);
    }
    fn skip_created(&mut self, tree: &Tree) {
        while self.next < self.order.len() && tree.child(self.order[self.next] as usize) != NONE {
            self.next += 1;
        }
    }
    pub(crate) fn created(&mut self, e: usize, tree: &Tree) {
        self.with_child.push(e as u32);
        self.skip_created(tree);
    }
    pub(crate) fn select(&self, tree: &Tree, cfg: &MctsConfig) -> usize {
        let n = tree.node(0);
        let first = tree.edges(0).start;
        let parent_n = n.visits + n.vloss as u32;
        let cs = cpuct(cfg, parent_n) * (parent_n.max(1) as f32).sqrt();
        let (mut best, mut best_score, mut visited_policy) = (first, f32::NEG_INFINITY, 0.0f32);
        for &e in &self.with_child {
            let e = e as usize;
            let p = self.priors[e - first];
            let c = tree.child(e);
            let (q, nn) = child_q(tree, c, cfg.virtual_loss);
            if tree.node(c).visits > 0 {
                visited_policy += p;
            }
            let s = q + cs * p / (1 + nn) as f32;
            if s > best_score || (s == best_score && e < best) {
                best_score = s;
                best = e;
            }
        }
        if let Some(&e) = self.order.get(self.next) {
            let e = e as usize;
            let s = fpu(-n.q(), cfg, visited_policy) + cs * self.priors[e - first];
            if s > best_score {
                best = e;
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Move;
    use engine::Square;
    use rand::{Rng, SeedableRng};

    #[test]
    fn expansion_orders_the_best_priors_first() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for n in [1usize, 3, 16, 17, 40, 234] {
            for round in 0..20 {
                let moves: Vec<Move> = (0..n)
                    .map(|i| Move::new(Square::from_index(i % 256), Square::from_index((i * 7 + 1) % 256), false))
                    .collect();
                let mut priors: Vec<f32> = (0..n).map(|_| rng.gen::<f32>().powi(4)).collect();
                if round % 4 == 0 {
                    priors.iter_mut().for_each(|p| *p = 1.0); // ties everywhere
                }
                let mut t = Tree::new(10, 10_000, 4);
                let node = t.add_node(NodeState::Pending, 0, &moves);
                set_priors(&mut t, node, &priors);
                let r = t.edges(node);
                let got: Vec<(u16, Move)> = t.edges[r.clone()].iter().map(|e| (e.prior, e.mv)).collect();
                // Same moves, each with its own prior.
                let sum: f32 = priors.iter().sum();
                for (b, m) in &got {
                    let i = moves.iter().position(|x| x == m).unwrap();
                    assert_eq!(*b, prob_to_f16(priors[i] / sum));
                }
                let k = SORTED_PREFIX.min(n);
                let mut want: Vec<(u16, usize)> =
                    moves.iter().enumerate().map(|(i, _)| (prob_to_f16(priors[i] / sum), i)).collect();
                want.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
                for j in 0..k {
                    assert_eq!(got[j].1, moves[want[j].1], "n {n} position {j}");
                }
                assert!(got[k..].iter().all(|x| x.0 <= got[k - 1].0));
                if n > SORTED_PREFIX {
                    let mut keys = Vec::new();
                    let mut scratch = Vec::new();
                    sort_tail(&mut t, node, &mut keys, &mut scratch);
                    let all: Vec<u16> = t.edges[r].iter().map(|e| e.prior).collect();
                    assert!(all.windows(2).all(|w| w[0] >= w[1]));
                }
            }
        }
    }
}
