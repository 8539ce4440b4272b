//! A run's self-play games as PGN records, one file per band of network steps, so the tools that
//! read arena records (`tenjiku-play`'s `material_swings` example) read self-play too.
//!
//! ```text
//! cargo run --release -p tenjiku-train --example chunk_pgn -- RUN_DIR OUT_PREFIX [BAND_STEPS]
//! ```
//! `RUN_DIR` holds the games (`RUN_DIR/games/w*/*.chunk`, e.g. a carried run's `games.tar.xz`
//! unpacked). Each game goes to `OUT_PREFIX-<first step of its band, 9 digits>.pgn` by the
//! training step of the network that played it (`BAND_STEPS` a band, default 1,000). Both sides
//! are named `mcts-selfplay`; teacher and opponent games are skipped. The record's result is
//! the game file's (adjudications included), its `NetStep` tag the step.

use std::collections::BTreeMap;
use std::sync::Arc;

use engine::record::{GameRecord, RecordResult};
use engine::{notation, Game, MoveTable, Position, Rules};
use train::{parse_chunk_key, Chunk, GameFile, Store, MAX_CHUNK_BYTES};

fn record(table: &Arc<MoveTable>, g: &GameFile) -> Result<GameRecord, String> {
    let start = Position::from_fen(&g.start_fen).map_err(|e| format!("start FEN: {e}"))?;
    let mut game = Game::new(table.clone(), start);
    for (i, p) in g.plies.iter().enumerate() {
        let legal = game.legal_moves();
        let m = notation::parse_cecp_in(game.position(), &legal, &p.mv)
            .map_err(|e| format!("ply {}: '{}': {e}", i + 1, p.mv))?;
        game.play(m).map_err(|e| format!("ply {}: '{}': {e}", i + 1, p.mv))?;
    }
    let mut r = GameRecord::from_game(&game, &g.rules);
    r.set_result(RecordResult::from_outcome(Some(g.outcome)));
    r.set_tag("Termination", &g.outcome.describe());
    r.set_tag("Black", "mcts-selfplay");
    r.set_tag("White", "mcts-selfplay");
    r.set_tag("NetStep", &g.net_step.to_string());
    Ok(r)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !(2..=3).contains(&args.len()) {
        eprintln!("usage: chunk_pgn RUN_DIR OUT_PREFIX [BAND_STEPS]");
        std::process::exit(2);
    }
    let band: u64 = match args.get(2).map(|s| s.parse::<u64>()) {
        None => 1000,
        Some(Ok(b)) if b > 0 => b,
        _ => {
            eprintln!("BAND_STEPS must be a whole number of steps, at least 1, not '{}'", args[2]);
            std::process::exit(2);
        }
    };
    let fail = |e: String| -> ! {
        eprintln!("{e}");
        std::process::exit(1)
    };
    let store = Store::open(&args[0]).unwrap_or_else(|e| fail(e.to_string()));
    let table = Arc::new(MoveTable::new(&Rules::standard()));
    let mut bands: BTreeMap<u64, String> = BTreeMap::new();
    let (mut games, mut skipped) = (0u64, 0u64);
    for entry in store.list("games").unwrap_or_else(|e| fail(e.to_string())) {
        let Some(name) = parse_chunk_key(&entry.key) else { continue };
        let bytes = match store.get(&entry.key, MAX_CHUNK_BYTES) {
            Ok(Some(b)) => b,
            Ok(None) => continue,
            Err(e) => fail(e.to_string()),
        };
        let chunk = Chunk::from_object(&name, &bytes).unwrap_or_else(|e| fail(format!("{}: {e}", entry.key)));
        for g in chunk.games.iter().filter(|g| !g.teacher && g.opponent.is_none()) {
            match record(&table, g) {
                Ok(r) => {
                    let text = bands.entry(g.net_step / band * band).or_default();
                    text.push_str(&r.to_text());
                    text.push('\n');
                    games += 1;
                }
                Err(e) => {
                    eprintln!("{}: a game does not replay ({e}); skipped", entry.key);
                    skipped += 1;
                }
            }
        }
    }
    for (start, text) in &bands {
        let path = format!("{}-{start:09}.pgn", args[1]);
        std::fs::write(&path, text).unwrap_or_else(|e| fail(format!("{path}: {e}")));
        println!("{path}: {} games", text.matches("[NetStep ").count());
    }
    println!("{games} games in {} bands; {skipped} skipped", bands.len());
}
