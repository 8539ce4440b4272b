//! Move-generation benchmarks behind `tenjiku bench movegen` (numbers go to BENCHMARKS.md).
//!
//! Timed here, never in unit tests: perft leaf throughput (bulk-counted at the last ply, one
//! thread) and make/unmake speed, both with in-place make/unmake and with copy-make.

use crate::movegen::generate;
use crate::moves::MoveList;
use crate::perft::perft;
use crate::position::Position;
use crate::powers::MoveTable;
use std::time::Instant;

/// Positions used by the benchmark and by the perft regression tests: the start position and
/// three midgame positions reached by seeded random play (see `engine/tests/perft.rs`).
pub const BENCH_POSITIONS: [(&str, &str); 4] = [
    ("start", crate::fen::START_FEN),
    ("midgame-1", MIDGAME_1),
    ("midgame-2", MIDGAME_2),
    ("midgame-3", MIDGAME_3),
];

/// Seed 1, ply 40 of seeded random play.
pub const MIDGAME_1: &str = "ln1icsgek2cifnl/afc!c!1txql!stoc!c!1a/s'v'bhd2q'h!d!1dh1v's'/mvrf!w!1d!v!q!w!b!1brvm/1pppppppppppp1pp/3e!d'6d'1e!2/7r!8/16/4V!11/16/1F!P5B!2D'1E!2/PP1PPPPPP1PPPPPP/MVRHE!L!1Q!1R!2F!R1M/S'1B1D1D!H!Q'D!W!DHNV'S'/AV'C!C!W!TO1QXTIC!1BA/LNFICSGKEGS+b!C!F1L b";
/// Seed 4, ply 120.
pub const MIDGAME_2: &str = "lnf1csgekgs1ic!nl/av'c!i1tx1l!od!tcfc!a/s'c!bhd1h!4dhbv's'/mvrf!6e!2rvm/pp1ppp2p6p/2p1d'f!3d!4p1/16/1V14/13q'2/9H!6/P3D'3L!1PP2P1/3E!PPP1P3P3/M1RDF!B!2V!2E!BH1+w!/S'V'B1HW!D!Q'2W!D4/AC!1C!CT1K1XT3V'A/LNFI1SGOEGSb!I2L b";
/// Seed 7, ply 120.
pub const MIDGAME_3: &str = "lnficse1kgscifnl/a1q'4x1o1hc!c!1a/1c!b2t3tw!d1bv's'/3f!w!1d!2r!1e!1rvm/1pr1ppd3pppf!W!p/2p5D!7/3pd'6D!4/16/16/2h!9E!P2/H2F!D'2d!3D'4/P2PPP4PPP1PP/M3E!4R!F!1R1VM/S'V'B1D4TW!1HBV'b!/AFC!C!TS3Q'DC!1C!1A/LN1ICL!GKB!XSCIFNL b";

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
