//! What an MCTS search reports: every root move's statistics and the result (the move, the
//! value, the principal variation). Below both `mcts` and `player`, so a [`crate::Player`] can
//! hand its last search to `go` without the trait depending on the searcher.

use engine::Move;

/// Statistics of one root move.
#[derive(Clone, Debug, PartialEq)]
pub struct RootMove {
    pub mv: Move,
    /// Network prior (without noise).
    pub prior: f32,
    /// Visits (reused ones included).
    pub visits: u32,
    /// Mean value for the side to move at the root, if visited.
    pub q: Option<f32>,
    /// Training target: visit share (PUCT) or completed-Q improved policy (Gumbel); one-hot
    /// on a move that takes the last royal.
    pub policy_target: f32,
}

/// The outcome of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The move to play (temperature or Gumbel selection applied).
    pub best: Move,
    pub most_visited: Move,
    /// Every legal move, in `Game::legal_moves` order.
    pub root_moves: Vec<RootMove>,
    /// Root value and WDL for the side to move.
    pub value: f32,
    pub wdl: [f32; 3],
    /// Visits below the root (reused included) and simulations of this search.
    pub visits: u32,
    pub simulations: u32,
    pub nodes: usize,
    pub pv: Vec<Move>,
    pub gumbel: bool,
}

impl SearchResult {
    /// `(move, policy target)` pairs.
    pub fn policy_target(&self) -> impl Iterator<Item = (Move, f32)> + '_ {
        self.root_moves.iter().map(|r| (r.mv, r.policy_target))
    }
}
