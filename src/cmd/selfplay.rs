//! `tenjiku selfplay`: a stateless self-play worker over a run's store (train/src/worker.rs).

use anyhow::Result;
use std::path::PathBuf;
use train::WorkerOptions;

/// `--store`, shared with `learn`.
#[derive(clap::Args)]
pub struct StoreArg {
    /// The run's store: file://DIR (or a directory path) or s3://BUCKET/PREFIX (credentials and
    /// endpoint from the AWS environment variables).
    #[arg(long)]
    pub store: String,
}

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    store: StoreArg,
    /// The run config; it must agree with the store's config.toml (written by the trainer) except
    /// in backend, threads and concurrent_games, which are the worker's own.
    #[arg(long)]
    config: Option<PathBuf>,
    /// Worker index (default: $JOB_COMPLETION_INDEX, then $SLURM_ARRAY_TASK_ID, then 0). Each
    /// worker of a run needs its own.
    #[arg(long)]
    worker: Option<u32>,
    /// Stop after uploading this many games.
    #[arg(long)]
    max_games: Option<u64>,
    /// Stop after this many minutes; more than 0, at most a year.
    #[arg(long, value_parser = super::train::minutes)]
    max_minutes: Option<f64>,
    /// Burn backend for this worker's network (overrides the config's).
    #[arg(long)]
    backend: Option<String>,
    /// threads=N or concurrent_games=N for this worker (repeatable).
    #[arg(long = "set", value_name = "FIELD=VALUE")]
    set: Vec<String>,
    /// Look for a newer network at most this often (seconds, 0.1 to 3600).
    #[arg(long, default_value_t = 10.0, value_parser = seconds)]
    poll_seconds: f64,
    /// Print a progress line this often (seconds, 0.1 to 3600).
    #[arg(long, default_value_t = 10.0, value_parser = seconds)]
    report_seconds: f64,
}

pub fn seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if (0.1..=3600.0).contains(&x) => Ok(x),
        _ => Err(format!("'{s}' is not a number of seconds from 0.1 to 3600")),
    }
}

pub fn run(a: Args) -> Result<()> {
    let opts = WorkerOptions {
        store: a.store.store,
        config: a.config,
        worker: a.worker,
        max_games: a.max_games,
        max_minutes: a.max_minutes,
        backend: a.backend,
        sets: a.set,
        poll_seconds: a.poll_seconds,
        report_seconds: a.report_seconds,
    };
    let s = train::selfplay(&opts)?;
    println!(
        "worker {}: {} games, {} positions uploaded; {} positions played in {:.0} s ({:.1}/s) ({})",
        s.worker,
        s.games,
        s.positions,
        s.played,
        s.seconds,
        s.played as f64 / s.seconds.max(1e-9),
        s.stop
    );
    Ok(())
}
