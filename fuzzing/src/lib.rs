//! Fuzz targets: one function per kind of input a user or a file can give the program. Each
//! takes arbitrary bytes and must return, whatever they are, without a panic, an abort or a
//! hang (and within the time a person would wait); where an input is accepted it also checks a
//! property (a FEN or a move written back reads as itself).
//!
//! The same functions run three ways: under libFuzzer (`fuzzing/fuzz`, `cargo fuzz`, nightly
//! Rust), over the committed corpus of each target (`fuzzing/corpus/TARGET/`, every file, in
//! the normal test suite) and over random bytes from proptest (a short run in the suite).
//! `docs/fuzzing.md` says how to run them and what the long runs found.

use engine::{MoveTable, Position, Rules};
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// Every target, by name (the corpus folder and the libFuzzer binary have the same names).
pub const TARGETS: [(&str, fn(&[u8])); 11] = [
    ("fen", fen),
    ("move_text", move_text),
    ("cecp_lines", cecp_lines),
    ("engine_spec", engine_spec),
    ("rules_toml", rules_toml),
    ("network_toml", network_toml),
    ("run_config_toml", run_config_toml),
    ("checkpoint_bytes", checkpoint_bytes),
    ("game_file_bytes", game_file_bytes),
    ("chunk_bytes", chunk_bytes),
    ("game_records", game_records),
];

/// The most bytes a text target reads (longer inputs only slow the fuzzer down).
const MAX_TEXT: usize = 64 << 10;

fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(&data[..data.len().min(MAX_TEXT)]).ok()
}

fn table() -> &'static Arc<MoveTable> {
    static T: OnceLock<Arc<MoveTable>> = OnceLock::new();
    T.get_or_init(|| Arc::new(MoveTable::new(&Rules::standard())))
}

/// A FEN: refused with an error, or read; a position read writes back to a FEN that reads as
/// the same position.
pub fn fen(data: &[u8]) {
    let Some(s) = text(data) else { return };
    if let Ok(p) = engine::parse_fen(s) {
        let back = engine::parse_fen(&p.to_fen()).expect("a written FEN reads");
        assert_eq!(back, p, "FEN round trip of {s:?}");
        let _ = engine::legal_moves(&p, table());
    }
}

/// Move text in CECP and Hodges notation against one of the benchmark positions (the first
/// byte picks it): a move read writes back (CECP) to text that reads as the same move.
pub fn move_text(data: &[u8]) {
    let Some((&pick, rest)) = data.split_first() else { return };
    let Some(s) = text(rest) else { return };
    let positions = positions();
    let pos = &positions[pick as usize % positions.len()];
    let t = table();
    for m in [engine::notation::parse_cecp(pos, t, s), engine::hodges::parse_hodges(pos, t, s)].into_iter().flatten() {
        let cecp = engine::notation::to_cecp(m);
        assert_eq!(engine::notation::parse_cecp(pos, t, &cecp), Ok(m), "{s:?} -> {cecp}");
        let hodges = engine::hodges::to_hodges(pos, t, m);
        assert_eq!(engine::hodges::parse_hodges(pos, t, &hodges), Ok(m), "{s:?} -> {hodges}");
    }
}

fn positions() -> &'static [Position] {
    static P: OnceLock<Vec<Position>> = OnceLock::new();
    P.get_or_init(|| {
        engine::perft::bench_positions().into_iter().map(|(_, f)| Position::from_fen(&f).expect("bench FEN")).collect()
    })
}

/// CECP command lines, one per line (at most 200), to an engine playing random moves.
pub fn cecp_lines(data: &[u8]) {
    let Some(s) = text(data) else { return };
    let spec = search::EngineSpec::parse("random:seed=1").expect("spec");
    let mut engine = play::cecp::Cecp::new(spec, Rules::standard(), std::io::sink()).expect("the random engine builds");
    for line in s.lines().take(200) {
        match engine.handle_line(line) {
            Ok(true) => {}
            Ok(false) | Err(_) => break,
        }
    }
}

/// An engine spec: parsed, then built by the registry (networks are not loaded here: an `mcts`
/// spec is checked key by key and its search settings read, which is all that its text
/// decides before a file is opened).
pub fn engine_spec(data: &[u8]) {
    let Some(s) = text(data) else { return };
    let Ok(spec) = search::EngineSpec::parse(s) else { return };
    if spec.kind == "mcts" {
        let mut keys: Vec<&str> = search::mcts::MctsConfig::SPEC_KEYS.to_vec();
        keys.extend_from_slice(&play::MCTS_NET_KEYS);
        if spec.check_keys(&keys).is_ok() {
            let _ = search::mcts::MctsConfig::apply_spec(&spec);
        }
        return;
    }
    // A table of up to half the machine's memory is a valid request, but too slow to allocate
    // on every run of a fuzz target.
    if spec.number::<u64>("tt").ok().flatten().is_some_and(|mb| mb > 64) {
        return;
    }
    if let Ok(mut player) = play::build(&spec, &Rules::standard()) {
        // A built engine chooses a legal move within a small budget.
        player.set_limits(search::Limits { depth: Some(1), nodes: Some(2000), ..search::Limits::default() });
        let game = engine::Game::new(table().clone(), Position::start());
        let m = player.choose(&game, &mut |_| {});
        assert!(game.legal_moves().contains(&m), "{s}: {m}");
    }
}

/// A rules file's text.
pub fn rules_toml(data: &[u8]) {
    if let Some(s) = text(data) {
        if let Ok(r) = Rules::from_toml(s) {
            assert_eq!(Rules::from_toml(&r.to_toml()).expect("written rules read"), r);
        }
    }
}

/// A network config's text (validated before anything is allocated).
pub fn network_toml(data: &[u8]) {
    if let Some(s) = text(data) {
        if let Ok(c) = nn::NetConfig::from_toml(s) {
            assert!(c.parameter_count() <= nn::network::MAX_PARAMETERS);
        }
    }
}

/// A run config's text (every field checked against its range).
pub fn run_config_toml(data: &[u8]) {
    if let Some(s) = text(data) {
        let _ = train::RunConfig::from_toml(s, "fuzz.toml");
    }
}

/// A checkpoint file's bytes.
pub fn checkpoint_bytes(data: &[u8]) {
    let _ = nn::checkpoint::from_bytes(Path::new("fuzz.ckpt"), data, &nn::backend::cpu_device());
}

/// A game file's bytes, and, when they read, its replay into training samples.
pub fn game_file_bytes(data: &[u8]) {
    if let Ok(g) = train::GameFile::from_bytes(data) {
        let _ = g.samples(table());
    }
}

/// A chunk's bytes (a worker's upload, read by the trainer from a shared store), and, when
/// they read, each game's replay into training samples.
pub fn chunk_bytes(data: &[u8]) {
    if let Ok(c) = train::Chunk::from_bytes(data) {
        for g in c.games.iter().take(8) {
            let _ = g.samples(table());
        }
    }
}

/// A game-record file's text: every game (at most 8) replayed and judged by the rules.
pub fn game_records(data: &[u8]) {
    let Some(s) = text(data) else { return };
    if let Ok(records) = engine::record::parse_records(s) {
        for r in records.iter().take(8) {
            if let Ok(game) = r.replay() {
                let _ = r.contradiction(&game);
            }
            let _ = r.to_text();
        }
    }
}
