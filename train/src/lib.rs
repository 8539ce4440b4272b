//! Learning by self-play: run configs, self-play and teacher games, game files and the
//! training window, the learner, metrics and charts, and the training loop.
//!
//! Stands on `play` (the engine registry and the arena, for its evaluation games); nothing a
//! person plays with lives here. The command line needs only what is re-exported below.

mod bootstrap;
mod config;
mod error;
mod games;
mod learner;
mod metrics;
mod plot;
mod replay;
mod run;
mod selfplay;

pub use config::{Bootstrap, ConfigError, FieldError, RunConfig};
pub use error::RunError;
pub use plot::{plot_compare, plot_run};
pub use replay::{GameFile, GameFileError};
pub use run::{run, RunOptions, RunSummary, EVAL_OPENING_PLIES};
