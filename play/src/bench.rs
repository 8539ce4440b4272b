//! Speed benchmarks behind `tenjiku bench` (their numbers go to BENCHMARKS.md, never into
//! timed tests): move generation and make/unmake (`movegen`), and search with the network
//! (`mcts`).

mod mcts;
mod movegen;

pub use mcts::{mcts_speed, MctsBench, MctsBenchRow};
pub use movegen::{copy_make_speed, make_unmake_speed, perft_speed, Measurement};
