//! Encoding benchmark: µs per position for `encode` + `legal_indices` (the move list given),
//! and the same with move generation included, over the engine's bench positions and a
//! corpus of positions from seeded random games.
//!
//! `cargo run --release -p tenjiku-nn --example encode_bench [-- ITERATIONS]`

use engine::generate;
use engine::{Move, MoveList, MoveTable, Position, Rules};
use nn::encoding::{encode, HistoryFeatures, INPUT_SIZE};
use nn::policy::legal_indices;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::time::Instant;

/// Positions of seeded random games, every `every`-th ply.
fn random_corpus(t: &MoveTable, seed: u64, games: usize, max_plies: usize, every: usize) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut list = MoveList::new();
    let mut out = Vec::new();
    for _ in 0..games {
        let mut pos = Position::start();
        for ply in 0..max_plies {
            generate(&pos, t, &mut list);
            if list.is_empty() {
                break;
            }
            if ply % every == 0 {
                out.push(pos);
            }
            let m = list.as_slice()[rng.gen_range(0..list.len())];
            pos.play(t, m);
        }
    }
    out
}

struct Result {
    name: String,
    positions: usize,
    avg_moves: f64,
    encode_us: f64,
    encode_index_us: f64,
    with_movegen_us: f64,
}

fn measure(name: &str, t: &MoveTable, positions: &[Position], rounds: usize) -> Result {
    let moves: Vec<Vec<Move>> = positions
        .iter()
        .map(|p| {
            let mut l = MoveList::new();
            generate(p, t, &mut l);
            l.as_slice().to_vec()
        })
        .collect();
    let mut buf = vec![0.0f32; INPUT_SIZE];
    let mut idx = Vec::with_capacity(1024);
    let mut list = MoveList::new();
    let hist = HistoryFeatures { repetitions: 1, ply: 100 };
    let n = (positions.len() * rounds) as f64;
    // Warm-up.
    for (p, m) in positions.iter().zip(&moves) {
        encode(p, t, &hist, &mut buf);
        legal_indices(m, p.side_to_move(), &mut idx);
    }
    let start = Instant::now();
    for _ in 0..rounds {
        for p in positions {
            encode(p, t, &hist, &mut buf);
            black_box(&buf);
        }
    }
    let encode_us = start.elapsed().as_secs_f64() * 1e6 / n;
    let start = Instant::now();
    for _ in 0..rounds {
        for (p, m) in positions.iter().zip(&moves) {
            encode(p, t, &hist, &mut buf);
            legal_indices(m, p.side_to_move(), &mut idx);
            black_box((&buf, &idx));
        }
    }
    let encode_index_us = start.elapsed().as_secs_f64() * 1e6 / n;
    let start = Instant::now();
    for _ in 0..rounds {
        for p in positions {
            generate(p, t, &mut list);
            encode(p, t, &hist, &mut buf);
            legal_indices(list.as_slice(), p.side_to_move(), &mut idx);
            black_box((&buf, &idx));
        }
    }
    let with_movegen_us = start.elapsed().as_secs_f64() * 1e6 / n;
    Result {
        name: name.to_string(),
        positions: positions.len(),
        avg_moves: moves.iter().map(|m| m.len()).sum::<usize>() as f64 / positions.len() as f64,
        encode_us,
        encode_index_us,
        with_movegen_us,
    }
}

fn main() {
    let iterations: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(200_000);
    let t = MoveTable::new(&Rules::standard());
    let mut results = Vec::new();
    for (name, fen) in engine::perft::bench_positions() {
        let pos = Position::from_fen(&fen).expect("bench FEN");
        results.push(measure(&name, &t, &[pos], iterations));
    }
    let corpus = random_corpus(&t, 99, 40, 400, 4);
    let rounds = (iterations / corpus.len()).max(1);
    results.push(measure("random games (std)", &t, &corpus, rounds));
    for (label, rules) in [("hachu", Rules::hachu()), ("house", Rules::house())] {
        let t = MoveTable::new(&rules);
        let corpus = random_corpus(&t, 99, 40, 400, 4);
        let rounds = (iterations / corpus.len()).max(1);
        results.push(measure(&format!("random games ({label})"), &t, &corpus, rounds));
    }
    println!("| positions | count | avg legal moves | encode µs | encode + index µs | + movegen µs |");
    println!("|---|---|---|---|---|---|");
    for r in &results {
        println!(
            "| {} | {} | {:.0} | {:.2} | {:.2} | {:.2} |",
            r.name, r.positions, r.avg_moves, r.encode_us, r.encode_index_us, r.with_movegen_us
        );
    }
}
