//! `tenjiku learn`: the one trainer of a run over its store (train/src/run/, without a worker).

use super::selfplay::seconds;
use anyhow::{bail, Result};
use std::io::IsTerminal;
use std::path::PathBuf;
use train::RunOptions;

#[derive(clap::Args)]
pub struct Args {
    /// The run's store: file://DIR (or a directory path) or s3://BUCKET/PREFIX (credentials and
    /// endpoint from the AWS environment variables).
    #[arg(long)]
    store: String,
    /// Run config for a new run (written into the store as config.toml); optional when
    /// resuming, and a different one is refused.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Where metrics.csv, train.log and eval/ go (default: the store's directory for a file://
    /// store; required for s3://, whose store gets copies of metrics.csv and train.log).
    #[arg(long)]
    run_dir: Option<PathBuf>,
    /// Burn backend (overrides the config).
    #[arg(long)]
    backend: Option<String>,
    /// Seed of a new run (overrides the config).
    #[arg(long)]
    seed: Option<u64>,
    /// Stop at this training step (0: never); overrides the config's max_steps.
    #[arg(long)]
    max_steps: Option<u64>,
    /// Set a config field, FIELD=VALUE (repeatable; on a resumed run only lr and
    /// temperature_plies may change).
    #[arg(long = "set", value_name = "FIELD=VALUE")]
    set: Vec<String>,
    /// Stop after this many minutes (with a checkpoint).
    #[arg(long, value_parser = super::train::minutes)]
    max_minutes: Option<f64>,
    /// The trainer's lease on the store lapses this long after its last heartbeat (seconds,
    /// 3 to 86400); a second trainer is refused while it holds.
    #[arg(long, default_value_t = train::DEFAULT_LEASE_SECONDS, value_parser = clap::value_parser!(u64).range(3..=86400))]
    lease_seconds: u64,
    /// Look for new chunks this often (seconds, 0.1 to 3600).
    #[arg(long, default_value_t = train::DEFAULT_POLL_SECONDS, value_parser = seconds)]
    poll_seconds: f64,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// When the store has checkpoints and none of them loads, start again from a random network.
    #[arg(long)]
    start_over: bool,
}

pub fn run(a: Args) -> Result<()> {
    let run_dir = match (a.run_dir, a.store.starts_with("s3://")) {
        (Some(d), _) => d,
        (None, true) => bail!("--run-dir is required with an s3:// store (where metrics.csv, train.log and eval/ go)"),
        (None, false) => PathBuf::from(a.store.strip_prefix("file://").unwrap_or(&a.store)),
    };
    let opts = RunOptions {
        config: a.config,
        run_dir,
        backend: a.backend,
        seed: a.seed,
        max_steps: a.max_steps,
        max_minutes: a.max_minutes,
        bootstrap: None,
        sets: a.set,
        progress: !a.quiet && std::io::stderr().is_terminal(),
        start_over: a.start_over,
        store: Some(a.store),
        trainer_only: true,
        lease_seconds: a.lease_seconds,
        poll_seconds: a.poll_seconds,
    };
    let s = train::run(&opts)?;
    println!(
        "{}: step {}, {} games, {} positions ({})",
        opts.store.as_deref().unwrap_or(""),
        s.step,
        s.games,
        s.positions,
        s.stop
    );
    Ok(())
}
