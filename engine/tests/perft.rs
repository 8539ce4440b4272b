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

/// Midgame regression counts (positions from seeded random play, `engine::bench`); they pin
/// the generator's behaviour once the clause tests pass.
#[test]
fn perft_midgame_positions() {
    let t = table();
    let expected = [
        ("midgame-1", [206u64, 31_074, 6_417_418]),
        ("midgame-2", [234, 65_978, 15_674_421]),
        ("midgame-3", [304, 86_746, 26_377_882]),
    ];
    for (name, counts) in expected {
        let fen = engine::bench::BENCH_POSITIONS.iter().find(|p| p.0 == name).unwrap().1;
        let pos = Position::from_fen(fen).unwrap();
        for (d, &n) in counts.iter().enumerate().take(2) {
            assert_eq!(perft(&pos, &t, d as u32 + 1), n, "{name} depth {}", d + 1);
        }
    }
}

#[test]
#[ignore = "slow: ~50 million leaves; run with --ignored"]
fn perft_midgame_positions_depth_3() {
    let t = table();
    for (name, n) in [("midgame-1", 6_417_418u64), ("midgame-2", 15_674_421), ("midgame-3", 26_377_882)] {
        let fen = engine::bench::BENCH_POSITIONS.iter().find(|p| p.0 == name).unwrap().1;
        assert_eq!(perft(&Position::from_fen(fen).unwrap(), &t, 3), n, "{name}");
    }
}
