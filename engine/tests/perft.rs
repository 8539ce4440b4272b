//! Perft regression: every `.perft` file under `tests/data/` (shakmaty's format), read by this
//! one test. Counts of up to `QUICK_LEAVES` leaves run in the normal suite; the rest (about 90
//! million leaves) with `cargo test --release -- --ignored`.

use engine::perft::{parse_perft_file, perft, PerftCase};
use engine::{MoveTable, Position, Rules};

/// The largest count the normal suite checks.
const QUICK_LEAVES: u64 = 1_000_000;

fn cases() -> Vec<(String, PerftCase)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    for path in files.into_iter().filter(|p| p.extension().is_some_and(|e| e == "perft")) {
        let text = std::fs::read_to_string(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        for case in parse_perft_file(&text).unwrap_or_else(|e| panic!("{name}: {e}")) {
            out.push((name.clone(), case));
        }
    }
    assert!(out.len() >= 4, "the start position and three midgame positions at least");
    out
}

fn check(slow: bool) {
    let t = MoveTable::new(&Rules::standard());
    let mut checked = 0;
    for (file, case) in cases() {
        let pos = Position::from_fen(&case.fen).unwrap_or_else(|e| panic!("{file} {}: {e}", case.id));
        for &(depth, leaves) in &case.counts {
            if (leaves > QUICK_LEAVES) == slow {
                assert_eq!(perft(&pos, &t, depth), leaves, "{file} {} depth {depth}", case.id);
                checked += 1;
            }
        }
    }
    assert!(checked > 0);
}

#[test]
fn perft_counts_of_the_data_files() {
    check(false);
}

#[test]
#[ignore = "slow: about 90 million leaves; run with --ignored"]
fn perft_counts_of_the_data_files_deep() {
    check(true);
}

#[test]
fn the_start_position_counts_are_the_reference_ones() {
    let start = cases().into_iter().find(|(_, c)| c.id == "start").unwrap().1;
    assert_eq!(Position::from_fen(&start.fen).unwrap(), Position::start());
    assert_eq!(start.counts, vec![(1, 74), (2, 5_538), (3, 464_191), (4, 39_632_173)]);
}

#[test]
fn bad_perft_files_name_the_line() {
    assert_eq!(
        parse_perft_file("id x\nperft 1\n").unwrap_err().to_string(),
        "perft file line 2: expected 'perft DEPTH LEAVES', got 'perft 1'"
    );
    assert!(parse_perft_file("epd 16/16 b\n").unwrap_err().to_string().contains("line 1: 'epd' before any 'id'"));
    assert!(parse_perft_file("id x\n").unwrap_err().to_string().contains("no 'epd' line"));
    assert!(parse_perft_file("fen x\n").unwrap_err().to_string().contains("unknown key 'fen'"));
}
