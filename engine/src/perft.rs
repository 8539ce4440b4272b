//! Perft: count the leaf nodes of the legal-move tree, bulk-counted at the last ply.

use crate::movegen::generate;
use crate::moves::{Move, MoveList};
use crate::position::Position;
use crate::powers::MoveTable;

pub fn perft(pos: &Position, t: &MoveTable, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = MoveList::new();
    generate(pos, t, &mut list);
    if depth == 1 {
        return list.len() as u64;
    }
    let mut n = 0;
    for &m in list.iter() {
        let mut child = *pos;
        child.play(t, m);
        n += perft(&child, t, depth - 1);
    }
    n
}

/// Leaf counts per root move.
pub fn divide(pos: &Position, t: &MoveTable, depth: u32) -> Vec<(Move, u64)> {
    let mut list = MoveList::new();
    generate(pos, t, &mut list);
    list.iter()
        .map(|&m| {
            let mut child = *pos;
            child.play(t, m);
            (m, if depth <= 1 { 1 } else { perft(&child, t, depth - 1) })
        })
        .collect()
}
