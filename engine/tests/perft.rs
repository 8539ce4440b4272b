//! Perft regression from the start position (numbers copied from the project's reference
//! perft table; RULES.md §11 gives the depth-1 breakdown).

use engine::perft::perft;
use engine::{MoveTable, Position, Rules};

fn table() -> MoveTable {
    MoveTable::new(&Rules::standard())
}

#[test]
fn perft_start_depth_1_is_74() {
    assert_eq!(perft(&Position::start(), &table(), 1), 74);
}

#[test]
fn perft_start_depth_2_is_5538() {
    assert_eq!(perft(&Position::start(), &table(), 2), 5_538);
}

#[test]
fn perft_start_depth_3_is_464191() {
    assert_eq!(perft(&Position::start(), &table(), 3), 464_191);
}

#[test]
#[ignore = "slow: about 40 million leaves; run with --ignored"]
fn perft_start_depth_4_is_39632173() {
    assert_eq!(perft(&Position::start(), &table(), 4), 39_632_173);
}
