//! `tenjiku plot RUN`: PNG charts of a training run's metrics (see `train/src/plot.rs`);
//! `tenjiku plot --compare DIR RUN RUN...`: charts comparing runs;
//! `tenjiku plot --yardstick TABLE`: arena scores over training hours (see `train/src/yardstick.rs`).

use anyhow::{anyhow, Result};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct Args {
    /// The run directory (holds metrics.csv); the charts are written next to it. With
    /// --compare, two or more run directories.
    #[arg(required_unless_present = "yardstick")]
    run_dirs: Vec<PathBuf>,
    /// Write charts comparing the runs (compare-score.png, compare-policy-loss.png) into this
    /// directory instead.
    #[arg(long, value_name = "DIR")]
    compare: Option<PathBuf>,
    /// Chart the arena matches that measure runs: a CSV table (columns chart, series, hours, and
    /// record (an arena --json record beside it) or wins, draws, losses), one
    /// yardstick-<chart>.png per chart beside the table, score over training hours.
    #[arg(long, value_name = "TABLE", conflicts_with_all = ["run_dirs", "compare"])]
    yardstick: Option<PathBuf>,
    /// With --yardstick: draw a horizontal goal line at this score (percent).
    #[arg(long, value_name = "PERCENT")]
    goal: Option<f64>,
}

pub fn run(a: Args) -> Result<()> {
    let files = if let Some(table) = &a.yardstick {
        let dir = table.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        train::plot_yardstick(table, dir, a.goal)
    } else if a.goal.is_some() {
        Err("--goal draws a line on the --yardstick charts: give --yardstick TABLE with it".to_string())
    } else {
        match (&a.compare, a.run_dirs.as_slice()) {
            (Some(out), runs) => train::plot_compare(runs, out),
            (None, [run]) => train::plot_run(run),
            (None, _) => Err("give one run directory, or --compare DIR with several".to_string()),
        }
    }
    .map_err(|e| anyhow!(e))?;
    for f in files {
        println!("wrote {}", f.display());
    }
    Ok(())
}
