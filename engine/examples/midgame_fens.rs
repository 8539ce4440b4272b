//! Prints positions reached by seeded random play (used to pick the benchmark's midgame FENs).
use engine::Game;
use engine::{MoveTable, Position, Rules};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::sync::Arc;

fn main() {
    let t = Arc::new(MoveTable::new(&Rules::standard()));
    for (seed, plies) in [(1u64, 40usize), (2, 80), (4, 120), (5, 120), (6, 120), (7, 120)] {
        let mut g = Game::new(t.clone(), Position::start());
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        while !g.is_over() && g.ply_count() < plies {
            let m = *g.legal_moves().choose(&mut rng).unwrap();
            g.play(m).unwrap();
        }
        let p = g.position();
        println!(
            "seed {seed} ply {} pieces {}+{} moves {} fen {}",
            g.ply_count(),
            p.piece_count(engine::Color::Black),
            p.piece_count(engine::Color::White),
            g.legal_moves().len(),
            p.to_fen()
        );
    }
}
