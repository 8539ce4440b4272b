//! Learning by self-play: run configs, self-play and teacher games, game files and the
//! training window, the learner, metrics and charts, and the training loop.
//!
//! Stands on `play` (the engine registry and the arena, for its evaluation games); nothing a
//! person plays with lives here.

pub mod bootstrap;
pub mod config;
mod error;
pub mod games;
pub mod learner;
pub mod metrics;
pub mod plot;
pub mod replay;
pub mod run;
pub mod selfplay;

pub use error::RunError;
