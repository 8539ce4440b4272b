use super::PositionArgs;
use anyhow::Result;
use engine::Game;
use engine::{hodges, notation};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

#[derive(clap::Args)]
pub struct Args {
    /// Random seed: the same seed gives the same game.
    #[arg(long)]
    seed: u64,
    /// Stop after this many plies (the game may end earlier); 0 to 100,000.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(0..=100_000))]
    plies: u32,
    #[command(flatten)]
    pos: PositionArgs,
}

pub fn run(a: Args) -> Result<()> {
    let (pos, t) = a.pos.load()?;
    let mut game = Game::new(Arc::new(t), pos);
    let mut rng = ChaCha8Rng::seed_from_u64(a.seed);
    println!("start {}", game.position().to_fen());
    while !game.is_over() && game.ply_count() < a.plies as usize {
        let moves = game.legal_moves();
        let &m = moves.choose(&mut rng).expect("a game that is not over has a legal move");
        let before = *game.position();
        let h = hodges::to_hodges(&before, game.table(), m);
        game.play(m).map_err(anyhow::Error::msg)?;
        println!("{:>4}. {:<18} {:<22} {}", game.ply_count(), notation::to_cecp(m), h, game.position().to_fen());
    }
    match game.outcome() {
        Some(o) => println!("result {} ({})", o.result_text(), o.describe()),
        None => println!("result * (stopped after {} plies)", game.ply_count()),
    }
    Ok(())
}
