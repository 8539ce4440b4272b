//! The search tree as a compact arena: nodes in one `Vec`, edges in another, children as
//! contiguous edge ranges, no per-node heap allocation.
//!
//! * An **edge** (16 bytes) is a move of its parent position: the move (10 bytes), its prior
//!   (f16) and the index of the child node ([`NONE`] until the edge is first visited). Move,
//!   prior and child share one struct so that scoring an edge costs one cache miss, not three.
//! * A **node** (28 bytes) exists only for a visited edge and carries that edge's statistics:
//!   visits, value sum and draw sum (from the point of view of the player who made the move
//!   into the node), the in-flight visits (virtual loss), the network's own value of the node,
//!   its state and its edge range. Keeping the visit statistics in the child node rather than
//!   in every edge keeps the (mostly unvisited) edges small.
//!
//! Invariants the search relies on:
//! * node 0 is the root; a child is always created after its parent, and a node's edge range
//!   is allocated when the node is created, so edge ranges increase with node index (this is
//!   what lets [`Tree::compact`] slide the kept part of the arena down in place);
//! * away from the root, the created children of a node are a prefix of its edges, which are
//!   ordered by prior (see `puct.rs`).

use engine::Move;

/// "No child yet" (node 0 is the root and never anybody's child).
pub const NONE: u32 = 0;

/// Life cycle of a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum NodeState {
    /// Moves generated, waiting for its network evaluation (priors not set yet).
    Pending = 0,
    /// Evaluated: priors set and edges sorted.
    Expanded = 1,
    /// The game is decided here (or the position is scored as such, see `puct.rs`); `term`
    /// holds the value for the side to move. No edges.
    Terminal = 2,
}

/// One node (28 bytes).
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct Node {
    /// Sum of backed-up values, from the point of view of the side that moved *into* this
    /// node (the parent's side to move).
    pub value_sum: f32,
    /// Sum of backed-up draw probabilities.
    pub draw_sum: f32,
    /// The network's value of this node for its own side to move (terminal: the exact value).
    pub raw_value: f32,
    /// Completed visits (the node's own evaluation included).
    pub visits: u32,
    pub first_edge: u32,
    pub num_edges: u16,
    /// Number of children created, away from the root always the first `n_created` edges.
    pub n_created: u16,
    /// Visits in flight through this node (virtual loss).
    pub vloss: u16,
    pub state: NodeState,
    /// Terminal value for the side to move (-1, 0, 1).
    pub term: i8,
}

impl Node {
    fn new(state: NodeState, term: i8) -> Node {
        Node {
            value_sum: 0.0,
            draw_sum: 0.0,
            raw_value: term as f32,
            visits: 0,
            first_edge: 0,
            num_edges: 0,
            n_created: 0,
            vloss: 0,
            state,
            term,
        }
    }
    /// Mean value from the point of view of the side that moved into the node (0 unvisited).
    #[inline]
    pub fn q(&self) -> f32 {
        if self.visits == 0 {
            0.0
        } else {
            self.value_sum / self.visits as f32
        }
    }
}

/// One edge (16 bytes).
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub struct Edge {
    /// The child node, [`NONE`] until the edge is first visited.
    pub child: u32,
    pub mv: Move,
    /// Prior, IEEE half precision bits.
    pub prior: u16,
}

impl Edge {
    #[inline]
    pub fn prior(&self) -> f32 {
        f16_to_f32(self.prior)
    }
}

/// Size of one node in bytes.
pub const NODE_BYTES: usize = std::mem::size_of::<Node>();
/// Size of one edge in bytes.
pub const EDGE_BYTES: usize = std::mem::size_of::<Edge>();

/// The arena.
pub struct Tree {
    pub(crate) nodes: Vec<Node>,
    pub(crate) edges: Vec<Edge>,
    node_budget: usize,
    edge_budget: usize,
    remap: Vec<u32>,
    stack: Vec<u32>,
}

impl Tree {
    /// An empty tree that will never hold more than `node_budget` nodes and `edge_budget`
    /// edges. `reserve` nodes (and 64 edges per node) are reserved at once; the vectors grow
    /// geometrically up to the budgets and never shrink, so a tree reused move after move
    /// stops allocating once it has reached its working size.
    pub fn new(node_budget: usize, edge_budget: usize, reserve: usize) -> Tree {
        let node_budget = node_budget.clamp(2, u32::MAX as usize);
        let edge_budget = edge_budget.clamp(1, u32::MAX as usize);
        let rn = reserve.min(node_budget);
        let re = (reserve * 64).min(edge_budget);
        Tree {
            nodes: Vec::with_capacity(rn),
            edges: Vec::with_capacity(re),
            node_budget,
            edge_budget,
            remap: Vec::new(),
            stack: Vec::new(),
        }
    }

    pub fn clear(&mut self) {
        self.nodes.clear();
        self.edges.clear();
    }

    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }
    pub fn edge_count(&self) -> usize {
        self.edges.len()
    }
    pub fn node_budget(&self) -> usize {
        self.node_budget
    }
    pub fn edge_budget(&self) -> usize {
        self.edge_budget
    }
    /// Bytes held by the arena's vectors (capacity, not length).
    pub fn allocated_bytes(&self) -> usize {
        self.nodes.capacity() * NODE_BYTES + self.edges.capacity() * EDGE_BYTES
    }

    /// Whether one more node with `edges` edges fits in the budgets.
    #[inline]
    pub fn has_room(&self, edges: usize) -> bool {
        self.nodes.len() < self.node_budget && self.edges.len() + edges <= self.edge_budget
    }

    /// Append a node; with `moves`, allocate its edges (priors 0, no children).
    pub(crate) fn add_node(&mut self, state: NodeState, term: i8, moves: &[Move]) -> u32 {
        debug_assert!(self.has_room(moves.len()));
        assert!(moves.len() <= u16::MAX as usize, "more than 65535 moves in one position");
        let idx = self.nodes.len() as u32;
        let mut n = Node::new(state, term);
        n.first_edge = self.edges.len() as u32;
        n.num_edges = moves.len() as u16;
        self.nodes.push(n);
        self.edges.extend(moves.iter().map(|&mv| Edge { child: NONE, mv, prior: 0 }));
        idx
    }

    #[inline]
    pub fn edges(&self, node: u32) -> std::ops::Range<usize> {
        let n = &self.nodes[node as usize];
        n.first_edge as usize..n.first_edge as usize + n.num_edges as usize
    }
    #[inline]
    pub fn node(&self, i: u32) -> &Node {
        &self.nodes[i as usize]
    }
    #[inline]
    pub fn edge(&self, e: usize) -> &Edge {
        &self.edges[e]
    }
    #[inline]
    pub fn prior(&self, e: usize) -> f32 {
        self.edges[e].prior()
    }
    #[inline]
    pub fn edge_move(&self, e: usize) -> Move {
        self.edges[e].mv
    }
    #[inline]
    pub fn child(&self, e: usize) -> u32 {
        self.edges[e].child
    }
    /// Moves of a node's edges, in edge order.
    pub fn node_moves(&self, node: u32) -> impl Iterator<Item = Move> + '_ {
        self.edges[self.edges(node)].iter().map(|e| e.mv)
    }

    /// Keep only the subtree of `new_root`, which becomes node 0; everything else is freed.
    /// In place: the kept nodes and edge ranges slide down in their old order (O(nodes +
    /// edges), no allocation once the scratch vectors have grown).
    pub fn compact(&mut self, new_root: u32) {
        let len = self.nodes.len();
        self.remap.clear();
        self.remap.resize(len, u32::MAX);
        // Mark the reachable nodes.
        self.stack.clear();
        self.stack.push(new_root);
        while let Some(n) = self.stack.pop() {
            self.remap[n as usize] = 0;
            let node = self.nodes[n as usize];
            let first = node.first_edge as usize;
            for e in &self.edges[first..first + node.num_edges as usize] {
                if e.child != NONE {
                    self.stack.push(e.child);
                }
            }
        }
        // Slide them down in index order (new index <= old index, new edge start <= old).
        let (mut next, mut next_edge) = (0usize, 0usize);
        for old in 0..len {
            if self.remap[old] == u32::MAX {
                continue;
            }
            self.remap[old] = next as u32;
            let mut node = self.nodes[old];
            let (first, n) = (node.first_edge as usize, node.num_edges as usize);
            if n > 0 {
                debug_assert!(first >= next_edge, "edge ranges out of node order");
                self.edges.copy_within(first..first + n, next_edge);
            }
            node.first_edge = next_edge as u32;
            next_edge += n;
            self.nodes[next] = node;
            next += 1;
        }
        debug_assert_eq!(self.remap[new_root as usize], 0);
        self.nodes.truncate(next);
        self.edges.truncate(next_edge);
        for e in self.edges.iter_mut() {
            if e.child != NONE {
                e.child = self.remap[e.child as usize];
            }
        }
    }

    /// Number of nodes reachable from the root (equals [`Tree::node_count`] when nothing has
    /// leaked; used by the tests).
    pub fn reachable_count(&self) -> usize {
        if self.nodes.is_empty() {
            return 0;
        }
        let mut count = 0;
        let mut stack = vec![0u32];
        while let Some(n) = stack.pop() {
            count += 1;
            for e in self.edges(n) {
                if self.edges[e].child != NONE {
                    stack.push(self.edges[e].child);
                }
            }
        }
        count
    }
}

/// A probability (`0 ≤ p ≤ 1`) as IEEE half-precision bits (`half`; round to nearest even).
#[inline]
pub fn prob_to_f16(p: f32) -> u16 {
    debug_assert!((0.0..=1.0).contains(&p));
    half::f16::from_f32(p).to_bits()
}

/// IEEE half-precision bits → f32 (`half`).
#[inline]
pub fn f16_to_f32(h: u16) -> f32 {
    half::f16::from_bits(h).to_f32()
}

/// Identity hashing for Zobrist keys (already uniformly random).
#[derive(Clone, Copy, Default)]
pub(crate) struct IdHash;
impl std::hash::BuildHasher for IdHash {
    type Hasher = IdHasher;
    fn build_hasher(&self) -> IdHasher {
        IdHasher(0)
    }
}
pub(crate) struct IdHasher(u64);
impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ b as u64;
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = x;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f16_round_trip() {
        for &x in &[0.0f32, 1.0, 0.5, 0.333_333, 1e-3, 1e-5, 6e-8, 0.999_9] {
            let y = f16_to_f32(prob_to_f16(x));
            assert!((x - y).abs() <= x * 1e-3 + 6e-8, "{x} -> {y}");
        }
        // Monotone on probabilities (the edge sort relies on it).
        let mut prev = 0u16;
        for i in 0..2000 {
            let h = prob_to_f16(i as f32 / 2000.0);
            assert!(h >= prev);
            prev = h;
        }
        assert_eq!(prob_to_f16(1.0), 0x3c00);
        assert_eq!(NODE_BYTES, 28);
        assert_eq!(EDGE_BYTES, 16);
    }
}
