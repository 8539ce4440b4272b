//! `tenjiku learn`: the one trainer of a run over its store (train/src/run/, without a worker).

use super::selfplay::{seconds, StoreArg};
use super::train::TrainerArgs;
use anyhow::{bail, Result};
use std::path::PathBuf;
use train::RunOptions;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    store: StoreArg,
    #[command(flatten)]
    trainer: TrainerArgs,
    /// Where metrics.csv, train.log and eval/ go (default: the store's directory for a file://
    /// store; required for s3://, whose store gets copies of metrics.csv and train.log).
    #[arg(long)]
    run_dir: Option<PathBuf>,
    /// The trainer's lease on the store lapses this long after its last heartbeat (seconds,
    /// 3 to 86400); a second trainer is refused while it holds.
    #[arg(long, default_value_t = train::DEFAULT_LEASE_SECONDS, value_parser = clap::value_parser!(u64).range(3..=86400))]
    lease_seconds: u64,
    /// Look for new chunks this often (seconds, 0.1 to 3600).
    #[arg(long, default_value_t = train::DEFAULT_POLL_SECONDS, value_parser = seconds)]
    poll_seconds: f64,
}

pub fn run(a: Args) -> Result<()> {
    let store = a.store.store;
    let run_dir = match (a.run_dir, store.starts_with("s3://")) {
        (Some(d), _) => d,
        (None, true) => bail!("--run-dir is required with an s3:// store (where metrics.csv, train.log and eval/ go)"),
        (None, false) => PathBuf::from(store.strip_prefix("file://").unwrap_or(&store)),
    };
    let opts = RunOptions {
        store: Some(store.clone()),
        trainer_only: true,
        lease_seconds: a.lease_seconds,
        poll_seconds: a.poll_seconds,
        ..a.trainer.options(run_dir)
    };
    let s = train::run(&opts)?;
    println!("{store}: step {}, {} games, {} positions ({})", s.step, s.games, s.positions, s.stop);
    Ok(())
}
