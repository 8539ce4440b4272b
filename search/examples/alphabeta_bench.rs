//! Alpha-beta benchmarks (numbers for BENCHMARKS.md, "Alpha-beta baseline").
//!
//! ```text
//! cargo run --release -p tenjiku-search --example alphabeta_bench            # nodes/s at 1 s/move
//! cargo run --release -p tenjiku-search --example alphabeta_bench -- time 500ms
//! cargo run --release -p tenjiku-search --example alphabeta_bench -- depth 3  # nodes to depth 3, per variant
//! cargo run --release -p tenjiku-search --example alphabeta_bench -- match A B GAMES MOVETIME [PLIES]
//! ```
//!
//! `match` plays a self-play match between two named variants (see [`variant`]): GAMES games
//! in pairs from the same seeded random opening (6 quiet plies), colours swapped, MOVETIME per move;
//! a game still running after PLIES plies (default 200) is adjudicated on material (a margin
//! of 1000 centipawns wins, else a draw). `AB_VERBOSE=1` prints each game's moves.

use engine::{Color, MoveTable, Position, Rules};
use engine::{Game, Outcome};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use search::alphabeta::{bench, AlphaBeta, SearchConfig};
use search::alphabeta::{EvalConfig, StaticEval};
use search::{parse_duration, Limits, Player};
use std::sync::Arc;
use std::time::Duration;

/// A named configuration for matches.
fn variant(name: &str) -> SearchConfig {
    let d = SearchConfig::default();
    let e = EvalConfig::default();
    match name {
        "default" => d,
        "material" => SearchConfig { eval: EvalConfig::material(), ..d },
        "nomob" => SearchConfig { eval: EvalConfig { mobility: 0, ..e }, ..d },
        "mob2" => SearchConfig { eval: EvalConfig { mobility: 2, ..e }, ..d },
        "mob4" => SearchConfig { eval: EvalConfig { mobility: 4, ..e }, ..d },
        "mob6" => SearchConfig { eval: EvalConfig { mobility: 6, ..e }, ..d },
        "promo0" => SearchConfig { eval: EvalConfig { promotion: 0, ..e }, ..d },
        "promo50" => SearchConfig { eval: EvalConfig { promotion: 50, ..e }, ..d },
        "nosafety" => SearchConfig { eval: EvalConfig { royal_safety: false, ..e }, ..d },
        "promo100" => SearchConfig { eval: EvalConfig { promotion: 100, ..e }, ..d },
        "promo25" => SearchConfig { eval: EvalConfig { promotion: 25, ..e }, ..d },
        "nocheckext" => SearchConfig { check_extension: false, ..d },
        "leafcheck" => SearchConfig { leaf_check: true, ..d },
        "asp" => SearchConfig { aspiration: true, ..d },
        other => panic!("unknown variant {other}"),
    }
}

/// Play one game; returns the score of engine `a` (1, ½, 0) and the plies played.
fn play_game(
    a: &mut AlphaBeta,
    b: &mut AlphaBeta,
    a_black: bool,
    opening_seed: u64,
    plies: usize,
) -> (f32, usize, &'static str) {
    let t = Arc::new(MoveTable::new(&Rules::standard()));
    let ev = StaticEval::new(&t, EvalConfig::material());
    let mut g = Game::new(t, Position::start());
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(opening_seed);
    for _ in 0..6 {
        // Random quiet moves (a random capture by a range jumper can decide the game at once).
        let pos = *g.position();
        let quiet: Vec<_> = g
            .legal_moves()
            .into_iter()
            .filter(|&m| {
                let mut p = pos;
                !p.play(g.table(), m).removed_any()
            })
            .collect();
        let m = *quiet.choose(&mut rng).unwrap();
        g.play(m).unwrap();
    }
    a.new_game();
    b.new_game();
    while !g.is_over() && g.ply_count() < plies {
        let black_to_move = g.side_to_move() == Color::Black;
        let e = if black_to_move == a_black { &mut *a } else { &mut *b };
        let m = e.choose(&g, &mut |_| {});
        g.play(m).unwrap();
    }
    if std::env::var("AB_VERBOSE").is_ok() {
        let moves: Vec<String> = g.moves().map(|m| m.to_string()).collect();
        println!("  moves: {}", moves.join(" "));
    }
    let a_color = if a_black { Color::Black } else { Color::White };
    match g.outcome() {
        Some(Outcome::Win { winner, .. }) => (if winner == a_color { 1.0 } else { 0.0 }, g.ply_count(), "end"),
        Some(Outcome::Draw(_)) => (0.5, g.ply_count(), "draw"),
        None => {
            let m = ev.material_black(g.position()) * if a_black { 1 } else { -1 };
            let s = if m >= 1000 {
                1.0
            } else if m <= -1000 {
                0.0
            } else {
                0.5
            };
            (s, g.ply_count(), "adjudicated")
        }
    }
}

fn variants() -> Vec<(&'static str, SearchConfig)> {
    let d = SearchConfig::default();
    vec![
        ("default", d),
        ("aspiration", SearchConfig { aspiration: true, ..d }),
        ("leaf check", SearchConfig { leaf_check: true, ..d }),
        ("no check extension", SearchConfig { check_extension: false, ..d }),
        ("no TT", SearchConfig { tt_mb: 0, ..d }),
    ]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("match") => {
            let (na, nb) = (args[1].as_str(), args[2].as_str());
            let games: usize = args[3].parse().unwrap();
            let movetime = parse_duration(&args[4]).unwrap();
            let plies: usize = args.get(5).map_or(200, |s| s.parse().unwrap());
            let limits = Limits { movetime: Some(movetime), ..Limits::default() };
            let mut a = AlphaBeta::new(limits, variant(na), 1);
            let mut b = AlphaBeta::new(limits, variant(nb), 2);
            let (mut score, mut n) = (0.0, 0);
            for i in 0..games {
                let (s, len, how) = play_game(&mut a, &mut b, i % 2 == 0, 1000 + (i / 2) as u64, plies);
                score += s;
                n += 1;
                println!(
                    "game {i}: {na} {} scores {s} after {len} plies ({how}); total {score}/{n}",
                    if i % 2 == 0 { "Black" } else { "White" }
                );
            }
            println!("{na} vs {nb}: {score}/{n}");
        }
        Some("depth") => {
            let depth: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(3);
            println!("| variant | position | depth | nodes | time (s) | best | score |");
            println!("|---|---|---:|---:|---:|---|---:|");
            for (vname, cfg) in variants() {
                let limits = Limits { depth: Some(depth), ..Limits::default() };
                let mut total = 0;
                let mut secs = 0.0;
                for r in bench(limits, cfg) {
                    println!(
                        "| {vname} | {} | {} | {} | {:.2} | {} | {} |",
                        r.name, r.depth, r.nodes, r.secs, r.best, r.score
                    );
                    total += r.nodes;
                    secs += r.secs;
                }
                println!("| {vname} | **total** | {depth} | {total} | {secs:.2} | | |");
            }
        }
        other => {
            let t = match other {
                Some("time") => args.get(1).and_then(|s| parse_duration(s)).unwrap_or(Duration::from_secs(1)),
                _ => Duration::from_secs(1),
            };
            let limits = Limits { movetime: Some(t), ..Limits::default() };
            println!("| position | depth reached | nodes | time (s) | nodes/s | best | score |");
            println!("|---|---:|---:|---:|---:|---|---:|");
            for r in bench(limits, SearchConfig::default()) {
                println!(
                    "| {} | {} | {} | {:.2} | {:.0} | {} | {} |",
                    r.name,
                    r.depth,
                    r.nodes,
                    r.secs,
                    r.nodes_per_sec(),
                    r.best,
                    r.score
                );
            }
        }
    }
}
