//! `tenjiku`: the command line. Parsing and dispatch only; the work lives in the crates.

mod cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "tenjiku", version, about = "Tenjiku Shogi engine: rules, analysis and play")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Every legal move of a position, one per line, in CECP coordinate text, sorted bytewise.
    Moves(cmd::moves::Args),
    /// Count the leaves of the legal-move tree to a depth.
    Perft(cmd::perft::Args),
    /// Draw the board as people read it.
    Show(cmd::show::Args),
    /// Play a seeded random game, printing each move and the position after it.
    PlayRandom(cmd::play_random::Args),
    /// Speed benchmarks (move generation, make/unmake).
    Bench(cmd::bench::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Moves(a) => cmd::moves::run(a),
        Command::Perft(a) => cmd::perft::run(a),
        Command::Show(a) => cmd::show::run(a),
        Command::PlayRandom(a) => cmd::play_random::run(a),
        Command::Bench(a) => cmd::bench::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
