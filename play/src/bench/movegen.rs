//! Move-generation benchmarks behind `tenjiku bench movegen` (numbers go to BENCHMARKS.md).
//!
//! Timed here, never in unit tests: perft leaf throughput (bulk-counted at the last ply, one
//! thread) and make/unmake speed, both with in-place make/unmake and with copy-make.

use engine::generate;
use engine::perft::perft;
use engine::{MoveList, MoveTable, Position};
use std::time::Instant;

/// One measurement.
#[derive(Debug, Clone)]
pub struct Measurement {
    pub name: String,
    pub what: &'static str,
    pub depth: u32,
    pub count: u64,
    pub secs: f64,
}

impl Measurement {
    pub fn per_sec(&self) -> f64 {
        self.count as f64 / self.secs.max(1e-9)
    }
}

/// Perft leaves per second at `depth`.
pub fn perft_speed(name: &str, pos: &Position, t: &MoveTable, depth: u32) -> Measurement {
    let start = Instant::now();
    let n = perft(pos, t, depth);
    Measurement { name: name.into(), what: "perft leaves", depth, count: n, secs: start.elapsed().as_secs_f64() }
}

fn walk_unmake(pos: &mut Position, t: &MoveTable, depth: u32, count: &mut u64) {
    let mut list = MoveList::new();
    generate(pos, t, &mut list);
    for &m in list.iter() {
        let eff = pos.play(t, m);
        *count += 1;
        if depth > 1 {
            walk_unmake(pos, t, depth - 1, count);
        }
        pos.unplay(m, &eff);
    }
}

fn walk_copy(pos: &Position, t: &MoveTable, depth: u32, count: &mut u64) {
    let mut list = MoveList::new();
    generate(pos, t, &mut list);
    for &m in list.iter() {
        let mut child = *pos;
        child.play(t, m);
        *count += 1;
        if depth > 1 {
            walk_copy(&child, t, depth - 1, count);
        }
    }
}

/// Make+unmake pairs per second over the tree to `depth` (move generation included at the
/// inner nodes only, so the count is dominated by the make/unmake of the last ply).
pub fn make_unmake_speed(name: &str, pos: &Position, t: &MoveTable, depth: u32) -> Measurement {
    let mut p = *pos;
    let mut n = 0;
    let start = Instant::now();
    walk_unmake(&mut p, t, depth, &mut n);
    assert!(p == *pos, "make/unmake did not restore the position");
    Measurement { name: name.into(), what: "make+unmake", depth, count: n, secs: start.elapsed().as_secs_f64() }
}

/// Copy-make nodes per second over the same tree.
pub fn copy_make_speed(name: &str, pos: &Position, t: &MoveTable, depth: u32) -> Measurement {
    let mut n = 0;
    let start = Instant::now();
    walk_copy(pos, t, depth, &mut n);
    Measurement { name: name.into(), what: "copy-make", depth, count: n, secs: start.elapsed().as_secs_f64() }
}
