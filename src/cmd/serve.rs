use anyhow::Result;
use engine::Rules;
use play::serve::{serve, ServeOptions};
use std::net::IpAddr;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// Port to listen on (0: any free port; the URL printed says which).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Address to listen on. The default serves this machine only; any other address lets
    /// everyone who can reach it on that network use the board (the server says so on start).
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// An engine the page offers (repeatable; the first is the default). Default: MCTS with the
    /// shipped network in checkpoints/ (or `alphabeta:time=1s` without one). Alpha-beta and
    /// random engines are always offered too; specs typed on the page may not name files.
    #[arg(long = "engine")]
    engines: Vec<String>,
    /// Rules preset (standard, house, hachu) or a rules TOML file (see configs/rules/).
    #[arg(long, default_value = "standard")]
    rules: String,
    /// A training run directory whose metrics the `/run` page charts while it trains.
    #[arg(long)]
    run_dir: Option<PathBuf>,
    /// Engine searches at once, over all games (default: the CPU cores, at least 1).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    max_searches: Option<u16>,
    /// Open the page in the default browser.
    #[arg(long)]
    open: bool,
}

pub fn run(a: Args) -> Result<()> {
    let rules = Rules::load(&a.rules)?;
    let engines = if a.engines.is_empty() { vec![play::default_engine_spec()] } else { a.engines };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let opts = ServeOptions {
        host: a.host,
        port: a.port,
        rules,
        engines,
        run_dir: a.run_dir,
        max_searches: a.max_searches.map_or(cores, usize::from),
        open: a.open,
    };
    serve(opts)?;
    Ok(())
}
