//! `tenjiku train`: the self-play training loop (train/src/run/): worker and trainer in one
//! process over the run directory. Its trainer options are shared with `tenjiku learn`.

use anyhow::Result;
use std::io::IsTerminal;
use std::path::PathBuf;
use train::Bootstrap;
use train::RunOptions;

pub fn parse_bootstrap(s: &str) -> Result<Bootstrap, String> {
    Bootstrap::parse(s).map_err(|e| e.to_string())
}

/// The trainer's options, shared by `train` and `learn`.
#[derive(clap::Args)]
pub struct TrainerArgs {
    /// Run config (configs/tiny.toml, cpu.toml, gpu.toml). Optional when resuming: the run's
    /// own config.toml is used, and a different one is refused.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Burn backend (default, cpu, flex, ndarray, wgpu, cuda as compiled in); overrides the config.
    #[arg(long)]
    pub backend: Option<String>,
    /// Seed of the run (a new run; a resumed run must keep its seed); overrides the config.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Stop at this training step (0: never); overrides the config's max_steps.
    #[arg(long)]
    pub max_steps: Option<u64>,
    /// Set a config field, FIELD=VALUE (repeatable). On a resumed run only two kinds may change:
    /// the learning schedule (lr, temperature_plies, selfplay_material_mix, ...: written to the
    /// run's config.toml and logged in train.log) and how the run goes (threads, max_steps,
    /// eval_every_checkpoints, ...: this invocation only); the run's config.toml lists both.
    #[arg(long = "set", value_name = "FIELD=VALUE")]
    pub set: Vec<String>,
    /// Stop after this many minutes (with a checkpoint); more than 0, at most a year.
    #[arg(long, value_parser = minutes)]
    pub max_minutes: Option<f64>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// When the run has checkpoints and none of them loads, start again from a random network
    /// instead of refusing (the unloadable ones are kept in checkpoints/unloadable/).
    #[arg(long)]
    pub start_over: bool,
}

impl TrainerArgs {
    /// The run options these give, for `run_dir` (the rest at their defaults).
    pub fn options(self, run_dir: PathBuf) -> RunOptions {
        RunOptions {
            config: self.config,
            run_dir,
            backend: self.backend,
            seed: self.seed,
            max_steps: self.max_steps,
            max_minutes: self.max_minutes,
            sets: self.set,
            progress: !self.quiet && std::io::stderr().is_terminal(),
            start_over: self.start_over,
            ..RunOptions::default()
        }
    }
}

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    trainer: TrainerArgs,
    /// Run directory (created; an existing one is resumed from its latest checkpoint).
    #[arg(long)]
    run_dir: PathBuf,
    /// Where the run's first positions come from: none (pure self-play, the default) or
    /// alphabeta (games of the alpha-beta teacher labelled by its search, then self-play; see the
    /// config's bootstrap fields). Sets the config's `bootstrap` for a new run.
    #[arg(long, value_parser = parse_bootstrap)]
    bootstrap: Option<Bootstrap>,
}

pub fn minutes(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(m) if m > 0.0 && m <= 365.0 * 24.0 * 60.0 => Ok(m),
        _ => Err(format!("'{s}' is not a number of minutes from more than 0 to 525600 (a year)")),
    }
}

pub fn run(a: Args) -> Result<()> {
    let opts = RunOptions { bootstrap: a.bootstrap, ..a.trainer.options(a.run_dir) };
    let s = train::run(&opts)?;
    println!("{}: step {}, {} games, {} positions ({})", opts.run_dir.display(), s.step, s.games, s.positions, s.stop);
    Ok(())
}
