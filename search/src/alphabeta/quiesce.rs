//! [`Quiescer`]: the alpha-beta engine's quiescence search as a position evaluator, for a
//! searcher that wants a tactically settled material score at its leaves (the MCTS's
//! `qsearch_mix`, `nn::search`). The captures, burns and recaptures the position offers are
//! played out for up to `qsearch_plies` plies, as at the horizon of an alpha-beta search; the
//! score is the side to move's, in centipawns, from the same static evaluation.

use super::{SearchConfig, Searcher, INF};
use engine::MoveTable;
use engine::Position;
use std::sync::Arc;

/// Nodes one evaluation may use before it falls back to the static evaluation (a quiescence
/// search in a crowded Tenjiku melee can branch widely; this keeps a leaf's cost bounded).
pub const QUIESCE_NODE_LIMIT: u64 = 4096;

/// A reusable quiescence search (its buffers persist between calls; nothing is remembered
/// from one position to the next).
pub struct Quiescer {
    searcher: Searcher,
    /// Nodes of the last call.
    pub nodes: u64,
}

impl Quiescer {
    /// A quiescer for the rules of `table` (other rules are picked up per call).
    pub fn new(table: Arc<MoveTable>) -> Quiescer {
        // No transposition table: the quiescence search does not use it.
        Quiescer { searcher: Searcher::new(table, SearchConfig { tt_mb: 0, ..SearchConfig::default() }), nodes: 0 }
    }

    /// The quiescence score of `pos` for its side to move (centipawns; a royal capture found
    /// scores near ±[`super::MATE`]). `table` must hold the rules `pos` is played under.
    pub fn score(&mut self, pos: &Position, table: &MoveTable) -> i32 {
        let s = &mut self.searcher;
        if s.t.rules != table.rules {
            s.set_table(Arc::new(table.clone()));
        }
        if let Some(v) = s.terminal(pos, 0) {
            return v;
        }
        s.stop = false;
        s.nodes = 0;
        s.node_limit = QUIESCE_NODE_LIMIT;
        s.deadline = None;
        let mut p = *pos;
        let v = s.qsearch(&mut p, -INF, INF, 0, 0, 0);
        self.nodes = s.nodes;
        if s.stop {
            s.stop = false;
            return s.ev.evaluate(pos);
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::alphabeta::eval::{EvalConfig, StaticEval};
    use crate::values::search_value as piece_value;
    use engine::rules::Rules;
    use engine::Kind;

    /// Black rook a2 facing an undefended White gold a9 up the open file; kings far apart.
    fn hanging_gold(side: char) -> Position {
        let empty = |n: usize| vec!["16"; n].join("/");
        Position::from_fen(&format!("k15/{}/g15/{}/R15/15K {side}", empty(6), empty(6))).unwrap()
    }

    /// The quiescence score counts a piece the side to move can take for free; the static
    /// score does not. With the other side to move nothing is capturable, so the two agree
    /// (the quiescence search sees captures, not threats).
    #[test]
    fn a_free_capture_is_counted() {
        let t = Arc::new(MoveTable::new(&Rules::standard()));
        let ev = StaticEval::new(&t, EvalConfig::default());
        let mut q = Quiescer::new(t.clone());
        let black = hanging_gold('b');
        let gain = q.score(&black, &t) - ev.evaluate(&black);
        assert!(gain >= piece_value(Kind::Gold) / 2, "gain {gain}, gold {}", piece_value(Kind::Gold));
        let white = hanging_gold('w');
        assert_eq!(q.score(&white, &t), ev.evaluate(&white));
        assert!(q.nodes > 0);
        // Balanced and quiet: the start position scores near 0 for either side.
        let start = Position::start();
        assert!(q.score(&start, &t).abs() < 100, "{}", q.score(&start, &t));
    }
}
