//! `tenjiku plot RUN`: PNG charts of a training run's metrics (see `train/src/plot.rs`);
//! `tenjiku plot --compare DIR RUN RUN...`: charts comparing runs.

use anyhow::{anyhow, Result};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The run directory (holds metrics.csv); the charts are written next to it. With
    /// --compare, two or more run directories.
    #[arg(required = true)]
    run_dirs: Vec<PathBuf>,
    /// Write charts comparing the runs (compare-score.png, compare-policy-loss.png) into this
    /// directory instead.
    #[arg(long, value_name = "DIR")]
    compare: Option<PathBuf>,
}

pub fn run(a: Args) -> Result<()> {
    let files = match (&a.compare, a.run_dirs.as_slice()) {
        (Some(out), runs) => train::plot_compare(runs, out),
        (None, [run]) => train::plot_run(run),
        (None, _) => Err("give one run directory, or --compare DIR with several".to_string()),
    }
    .map_err(|e| anyhow!(e))?;
    for f in files {
        println!("wrote {}", f.display());
    }
    Ok(())
}
