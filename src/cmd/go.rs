use super::PositionArgs;
use anyhow::Result;
use std::io::Write;

#[derive(clap::Args)]
pub struct Args {
    /// The engine: random, random:seed=N, alphabeta:depth=3, alphabeta:time=1s, ...
    #[arg(long, value_name = "SPEC")]
    engine: String,
    #[command(flatten)]
    pos: PositionArgs,
    /// Moves (CECP text) played from the position before the engine thinks.
    #[arg(long, num_args = 1.., value_name = "MOVE", allow_hyphen_values = false)]
    moves: Vec<String>,
}

pub fn run(a: Args) -> Result<()> {
    let (pos, table) = a.pos.load()?;
    let mut out = std::io::stdout();
    let best = play::go(pos, &table.rules, &a.moves, &a.engine, &mut |line| {
        // Thinking lines appear as the search goes, not all at the end.
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    })
    .map_err(anyhow::Error::msg)?;
    println!("bestmove {best}");
    Ok(())
}
