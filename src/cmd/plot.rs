//! `tenjiku plot RUN`: PNG charts of a training run's metrics (see `train::plot`).

use anyhow::{anyhow, Result};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The run directory (holds metrics.csv); the charts are written next to it.
    run_dir: PathBuf,
}

pub fn run(a: Args) -> Result<()> {
    let files = train::plot::plot_run(&a.run_dir).map_err(|e| anyhow!(e))?;
    for f in files {
        println!("wrote {}", f.display());
    }
    Ok(())
}
