//! One file per subcommand, plus the options they share.

pub mod arena;
pub mod bench;
pub mod checkpoint;
pub mod go;
pub mod learn;
pub mod moves;
pub mod perft;
pub mod play;
pub mod play_random;
pub mod plot;
pub mod selfplay;
pub mod serve;
pub mod show;
pub mod train;
pub mod xboard;

use anyhow::{Context, Result};
use engine::{MoveTable, Position, Rules};

/// `--fen` and `--rules`, shared by the commands that read a position.
#[derive(clap::Args, Clone, Debug)]
pub struct PositionArgs {
    /// Position in the FEN of RULES.md §16.2 (default: the start position).
    #[arg(long)]
    pub fen: Option<String>,
    /// Rules preset (standard, house, hachu) or a rules TOML file (see configs/rules/).
    #[arg(long, default_value = "standard")]
    pub rules: String,
}

impl PositionArgs {
    pub fn load(&self) -> Result<(Position, MoveTable)> {
        let rules = Rules::load(&self.rules)?;
        let pos = match &self.fen {
            None => Position::start(),
            Some(f) => Position::from_fen(f).context("--fen")?,
        };
        Ok((pos, MoveTable::new(&rules)))
    }
}
