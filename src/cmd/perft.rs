use super::PositionArgs;
use anyhow::{bail, Result};
use engine::{notation, perft};
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Depth in plies (1..=8).
    depth: u32,
    #[command(flatten)]
    pos: PositionArgs,
    /// First print one line per root move with its leaf count.
    #[arg(long)]
    divide: bool,
}

pub fn run(a: Args) -> Result<()> {
    if a.depth == 0 || a.depth > 8 {
        bail!("depth {} out of range: expected 1..=8", a.depth);
    }
    let (pos, t) = a.pos.load()?;
    let start = Instant::now();
    let total = if a.divide {
        let mut rows: Vec<(String, u64)> =
            perft::divide(&pos, &t, a.depth).into_iter().map(|(m, n)| (notation::to_cecp(m), n)).collect();
        rows.sort();
        for (m, n) in &rows {
            println!("{m} {n}");
        }
        rows.iter().map(|r| r.1).sum()
    } else {
        perft::perft(&pos, &t, a.depth)
    };
    let secs = start.elapsed().as_secs_f64();
    println!("perft {} = {}", a.depth, total);
    eprintln!("time {:.3} s, {:.2} million leaves/s", secs, total as f64 / secs.max(1e-9) / 1e6);
    Ok(())
}
