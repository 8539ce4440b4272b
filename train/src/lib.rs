//! Learning by self-play: run configs, self-play and teacher games, game files and the
//! training window, the learner, metrics and charts, and the training loop.
//!
//! Stands on `play` (the engine registry and the arena, for its evaluation games); nothing a
//! person plays with lives here. The command line needs only what is re-exported below.

mod bootstrap;
mod chunk;
mod config;
mod error;
mod games;
mod learner;
mod lease;
mod metrics;
mod plot;
mod replay;
mod run;
mod selfplay;
mod store;
mod worker;
mod yardstick;

pub use chunk::{parse_chunk_key, Chunk, ChunkError, ChunkName, MAX_CHUNK_BYTES};
pub use config::{Bootstrap, ConfigError, FieldError, RunConfig};
pub use error::RunError;
pub use plot::{plot_compare, plot_run};
pub use replay::{Batch, GameFile, GameFileError, Horizons, ReplayBuffer, Targets};
pub use run::{run, RunOptions, RunSummary, DEFAULT_LEASE_SECONDS, DEFAULT_POLL_SECONDS, EVAL_OPENING_PLIES};
pub use store::{Store, StoreError};
pub use worker::{selfplay, WorkerOptions, WorkerSummary};
pub use yardstick::{plot_yardstick, read_yardstick, YardstickPoint};
