//! The fuzz targets in the normal test suite: every file of each target's committed corpus
//! (`fuzzing/corpus/TARGET/`: seeds and what the long libFuzzer runs kept), then random inputs
//! from proptest, a short run of each target. A panic names the target and the input.

use proptest::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

#[test]
fn every_corpus_file_of_every_target_runs_without_a_panic() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/corpus");
    let mut inputs = 0;
    for (name, target) in fuzzing::TARGETS {
        let mut files: Vec<_> = std::fs::read_dir(format!("{dir}/{name}"))
            .unwrap_or_else(|e| panic!("corpus/{name}: {e}"))
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "corpus/{name} has no input");
        for f in files {
            let data = std::fs::read(&f).unwrap();
            if catch_unwind(AssertUnwindSafe(|| target(&data))).is_err() {
                panic!("target {name} panicked on {}", f.display());
            }
            inputs += 1;
        }
    }
    assert!(inputs >= 40, "{inputs}");
}

/// Bytes, and text built from the characters these formats use (more likely to get deep).
fn input() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..300),
        "[a-p0-9!'+/,@ =:.\\-\\[\\]\"{}#\\nKkLlNnPpGgRrBbQqxcefhimostvwdy_]{0,200}".prop_map(String::into_bytes),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn fen(data in input()) { fuzzing::fen(&data) }
    #[test]
    fn move_text(data in input()) { fuzzing::move_text(&data) }
    #[test]
    fn cecp_lines(data in input()) { fuzzing::cecp_lines(&data) }
    #[test]
    fn engine_spec(data in input()) { fuzzing::engine_spec(&data) }
    #[test]
    fn rules_toml(data in input()) { fuzzing::rules_toml(&data) }
    #[test]
    fn network_toml(data in input()) { fuzzing::network_toml(&data) }
    #[test]
    fn run_config_toml(data in input()) { fuzzing::run_config_toml(&data) }
    #[test]
    fn checkpoint_bytes(data in input()) { fuzzing::checkpoint_bytes(&data) }
    #[test]
    fn game_file_bytes(data in input()) { fuzzing::game_file_bytes(&data) }
    #[test]
    fn game_records(data in input()) { fuzzing::game_records(&data) }
    #[test]
    fn chunk_bytes(data in input()) { fuzzing::chunk_bytes(&data) }
}
