//! `tenjiku checkpoint`: network checkpoint files (format: `nn/src/checkpoint.rs`).

use anyhow::Result;
use engine::Rules;
use nn::checkpoint::{self, Checkpoint};
use nn::NetConfig;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand)]
enum Command {
    /// Print a checkpoint's header (versions, network config, rules, step, parent, checksum).
    Info {
        /// The checkpoint file.
        path: PathBuf,
    },
    /// Write a randomly initialised checkpoint.
    New {
        /// Network config (see configs/net-*.toml).
        #[arg(long)]
        config: PathBuf,
        /// Where to write the checkpoint.
        #[arg(long)]
        out: PathBuf,
        /// Seed of the random initialisation.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Rules preset (standard, house, hachu) or a rules TOML file the network plays.
        #[arg(long, default_value = "standard")]
        rules: String,
    },
    /// Write the element-wise mean of several checkpoints' networks (a snapshot average over a
    /// stretch of training; same network config and rules required; no optimiser state).
    Average {
        /// Where to write the averaged checkpoint.
        #[arg(long)]
        out: PathBuf,
        /// The checkpoints to average (at least two).
        #[arg(required = true, num_args = 2..)]
        inputs: Vec<PathBuf>,
    },
}

pub fn run(a: Args) -> Result<()> {
    match a.command {
        Command::Info { path } => {
            let header = checkpoint::read_header(&path)?;
            print!("{header}");
            Ok(())
        }
        Command::New { config, out, seed, rules } => {
            let cfg = NetConfig::load(&config)?;
            let loaded = Rules::load(&rules)?;
            let rules = engine::record::rules_tag(&loaded, &rules);
            let device = nn::backend::cpu_device();
            let ckpt = Checkpoint::random(&cfg, &rules, seed, &device);
            let sum = checkpoint::save(&out, &ckpt)?;
            println!(
                "wrote {} ({} blocks × {} channels, {:.1} MFLOP/position, seed {seed}, xxh64:{sum:016x})",
                out.display(),
                cfg.blocks,
                cfg.channels,
                cfg.flops_per_position() as f64 / 1e6
            );
            Ok(())
        }
        Command::Average { out, inputs } => {
            let device = nn::backend::cpu_device();
            let ckpt = checkpoint::average(&inputs, &device)?;
            let sum = checkpoint::save(&out, &ckpt)?;
            println!(
                "wrote {} (mean of {} checkpoints, step {}, xxh64:{sum:016x})",
                out.display(),
                inputs.len(),
                ckpt.header.step
            );
            Ok(())
        }
    }
}
