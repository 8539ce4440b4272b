use anyhow::Result;
use engine::cecp;
use engine::player::EngineSpec;
use engine::Rules;
use std::io::{stdin, stdout};

#[derive(clap::Args)]
pub struct Args {
    /// Engine spec, e.g. `alphabeta:time=1s`, `alphabeta:depth=4`, `random`.
    #[arg(long, default_value = "alphabeta:time=1s")]
    engine: String,
    /// Rules preset (standard, house, hachu) or a rules TOML file (see configs/rules/).
    #[arg(long, default_value = "standard")]
    rules: String,
}

pub fn run(a: Args) -> Result<()> {
    let rules = Rules::load(&a.rules)?;
    let spec = EngineSpec::parse(&a.engine)?;
    cecp::run(stdin().lock(), stdout().lock(), spec, rules, Box::new(train::make_player))?;
    Ok(())
}
