//! `tenjiku`: the command line. Parsing and dispatch only; the work lives in the crates.

mod cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// mimalloc instead of glibc's malloc: glibc returns the network's large per-call buffers
/// (tens of MB each) to the kernel and faults them back in, zeroed, on the next call; with
/// mimalloc a training step runs ~20% faster on the 2-core machine (BENCHMARKS.md, "Where a
/// self-play position's time goes").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
    /// Play engine A against engine B in colour-swapped pairs; report Elo and SPRT.
    Arena(cmd::arena::Args),
    /// An engine's move for a position, with its thinking lines, ending with `bestmove MOVE`.
    Go(cmd::go::Args),
    /// Play a game against an engine in the terminal (moves in Hodges or CECP notation).
    Play(cmd::play::Args),
    /// The web board: play and analyse in the browser (prints the URL to open).
    Serve(cmd::serve::Args),
    /// CECP (XBoard/WinBoard) engine on standard input and output.
    Xboard(cmd::xboard::Args),
    /// Network checkpoints: print a header (`info`), write a randomly initialised one (`new`).
    Checkpoint(cmd::checkpoint::Args),
    /// Self-play training: self-play with training steps beside it; resumes an existing run.
    Train(cmd::train::Args),
    /// A self-play worker of a run on many machines: plays with the newest published network
    /// and uploads its games to the store (see `learn`).
    Selfplay(cmd::selfplay::Args),
    /// The trainer of a run on many machines: trains on the workers' games in the store and
    /// publishes networks (see `selfplay`).
    Learn(cmd::learn::Args),
    /// Charts of a training run (losses, policy entropy, game length, Elo) as PNG files.
    Plot(cmd::plot::Args),
}

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so printing into a closed pipe (`tenjiku moves | head`) panics.
    // Restore the default: the process ends quietly, like other Unix tools. Files that matter are
    // written atomically, so no command can leave one half-written this way.
    #[cfg(unix)]
    // SAFETY: setting a signal disposition to its default before any thread is started.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion)
                || e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            {
                // Help and version are normal output, not errors.
                let _ = e.print();
                return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                    ExitCode::from(2)
                } else {
                    ExitCode::SUCCESS
                };
            }
            // One line, as for every other error: clap's first line names the problem.
            let text = e.to_string();
            let first = text.lines().next().unwrap_or("bad arguments").trim_start_matches("error: ");
            let hint: Vec<&str> =
                text.lines().skip(1).map(str::trim).filter(|l| l.starts_with('[') || l.starts_with("tip:")).collect();
            eprintln!("error: {first} {} (see --help)", hint.join(" "));
            return ExitCode::from(2);
        }
    };
    let result = match cli.command {
        Command::Moves(a) => cmd::moves::run(a),
        Command::Perft(a) => cmd::perft::run(a),
        Command::Show(a) => cmd::show::run(a),
        Command::PlayRandom(a) => cmd::play_random::run(a),
        Command::Bench(a) => cmd::bench::run(a),
        Command::Arena(a) => cmd::arena::run(a),
        Command::Go(a) => cmd::go::run(a),
        Command::Play(a) => cmd::play::run(a),
        Command::Serve(a) => cmd::serve::run(a),
        Command::Xboard(a) => cmd::xboard::run(a),
        Command::Checkpoint(a) => cmd::checkpoint::run(a),
        Command::Train(a) => cmd::train::run(a),
        Command::Selfplay(a) => cmd::selfplay::run(a),
        Command::Learn(a) => cmd::learn::run(a),
        Command::Plot(a) => cmd::plot::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
