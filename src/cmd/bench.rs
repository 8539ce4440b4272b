use anyhow::{bail, Result};
use engine::bench::{copy_make_speed, make_unmake_speed, perft_speed, Measurement, BENCH_POSITIONS};
use engine::{MoveTable, Position, Rules};

#[derive(clap::Args)]
pub struct Args {
    /// What to measure: movegen.
    #[arg(default_value = "movegen")]
    what: String,
    /// Perft depth for the leaf-throughput runs.
    #[arg(long, default_value_t = 4)]
    depth: u32,
}

pub fn run(a: Args) -> Result<()> {
    if a.what != "movegen" {
        bail!("unknown benchmark '{}': expected movegen", a.what);
    }
    let t = MoveTable::new(&Rules::standard());
    println!("Position size: {} bytes; Move size: {} bytes", std::mem::size_of::<Position>(), std::mem::size_of::<engine::Move>());
    println!("{:<10} {:<14} {:>5} {:>12} {:>9} {:>12}", "position", "measure", "depth", "count", "secs", "million/s");
    let print = |m: &Measurement| {
        println!("{:<10} {:<14} {:>5} {:>12} {:>9.3} {:>12.2}", m.name, m.what, m.depth, m.count, m.secs, m.per_sec() / 1e6)
    };
    for (name, fen) in BENCH_POSITIONS {
        let pos = Position::from_fen(fen)?;
        let depth = if name == "start" { a.depth } else { a.depth.saturating_sub(1).max(1) };
        print(&perft_speed(name, &pos, &t, depth));
        print(&make_unmake_speed(name, &pos, &t, 3));
        print(&copy_make_speed(name, &pos, &t, 3));
    }
    Ok(())
}
