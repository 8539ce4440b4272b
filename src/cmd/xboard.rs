use anyhow::Result;
use engine::Rules;
use play::cecp;
use search::EngineSpec;
use std::io::{stdin, stdout};

#[derive(clap::Args)]
pub struct Args {
    /// Engine spec (default: as `play`), e.g. `mcts:checkpoint=PATH,visits=800`,
    /// `alphabeta:time=1s`, `alphabeta:depth=4`, `random`.
    #[arg(long)]
    engine: Option<String>,
    /// Rules preset (standard, house, hachu) or a rules TOML file (see configs/rules/).
    #[arg(long, default_value = "standard")]
    rules: String,
}

pub fn run(a: Args) -> Result<()> {
    let rules = Rules::load(&a.rules)?;
    let spec = EngineSpec::parse(&a.engine.clone().unwrap_or_else(play::default_engine_spec))?;
    cecp::run(stdin().lock(), stdout().lock(), spec, rules)?;
    Ok(())
}
