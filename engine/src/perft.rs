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

/// One position of a `.perft` file (shakmaty's format): `id NAME`, `epd FEN`, then
/// `perft DEPTH LEAVES` lines.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerftCase {
    pub id: String,
    pub fen: String,
    /// (depth, leaves), in file order.
    pub counts: Vec<(u32, u64)>,
}

/// A `.perft` file that does not read: the line and what was wrong there.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("perft file line {line}: {what}")]
pub struct PerftFileError {
    pub line: usize,
    pub what: String,
}

/// Read a `.perft` file: `id NAME` starts a position, `epd FEN` gives it, `perft DEPTH LEAVES`
/// a count; blank lines and `#` comments are skipped.
pub fn parse_perft_file(text: &str) -> Result<Vec<PerftCase>, PerftFileError> {
    let mut cases: Vec<PerftCase> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let err = |what: String| PerftFileError { line: i + 1, what };
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, rest) = line
            .split_once(' ')
            .ok_or_else(|| err(format!("expected 'id', 'epd' or 'perft' and a value, got '{line}'")))?;
        let rest = rest.trim();
        match key {
            "id" => cases.push(PerftCase { id: rest.to_string(), fen: String::new(), counts: Vec::new() }),
            "epd" | "perft" => {
                let case = cases.last_mut().ok_or_else(|| err(format!("'{key}' before any 'id'")))?;
                if key == "epd" {
                    case.fen = rest.to_string();
                    continue;
                }
                let parsed = rest.split_once(' ').and_then(|(d, n)| Some((d.parse().ok()?, n.trim().parse().ok()?)));
                case.counts.push(parsed.ok_or_else(|| err(format!("expected 'perft DEPTH LEAVES', got '{line}'")))?);
            }
            _ => return Err(err(format!("unknown key '{key}' (expected id, epd or perft)"))),
        }
    }
    match cases.iter().find(|c| c.fen.is_empty()) {
        Some(c) => Err(PerftFileError { line: 0, what: format!("position '{}' has no 'epd' line", c.id) }),
        None => Ok(cases),
    }
}

/// The project's perft regression and benchmark positions (`engine/tests/data/positions.perft`:
/// the start position and three midgame positions), as (name, FEN).
pub fn bench_positions() -> Vec<(String, String)> {
    parse_perft_file(include_str!("../tests/data/positions.perft"))
        .expect("engine/tests/data/positions.perft reads")
        .into_iter()
        .map(|c| (c.id, c.fen))
        .collect()
}
