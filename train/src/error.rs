//! Why a training run could not start or go on: one enum for the loop, with the errors of the
//! parts it stands on (config, rules, backend, checkpoints) kept as they are.

use crate::config::{ConfigError, SCHEDULE_FIELDS};
use std::path::PathBuf;

/// A run that cannot start, resume or go on; one line saying what and what was expected.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Field(#[from] crate::config::FieldError),
    #[error(transparent)]
    Rules(#[from] engine::rules::RulesError),
    #[error(transparent)]
    Backend(#[from] nn::backend::BackendError),
    #[error(transparent)]
    Checkpoint(#[from] nn::CheckpointError),
    #[error(transparent)]
    OptimizerState(#[from] nn::train::OptimizerStateError),
    #[error("selfplay_material_mix: {0}")]
    MaterialMix(#[from] nn::evaluator::MaterialMixError),
    #[error("precision: {0}")]
    Precision(#[from] nn::backend::PrecisionError),
    #[error("cannot {op} {}: {source}", path.display())]
    Io {
        op: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("--seed {given} differs from the run's seed {run} (see {})", config.display())]
    SeedDiffers { given: u64, run: u64, config: PathBuf },
    #[error("--bootstrap {given} differs from the run's bootstrap '{run}' (see {})", config.display())]
    BootstrapDiffers { given: String, run: String, config: PathBuf },
    #[error("{} with --bootstrap {bootstrap}: {error}", config.display())]
    BootstrapInvalid { config: PathBuf, bootstrap: String, error: crate::config::FieldError },
    #[error("{} has no config.toml: give --config to start a run there", dir.display())]
    NoConfig { dir: PathBuf },
    /// `given_by` says which input differs: the `--config` file, or a `--set`.
    #[error("{given_by} in field `{field}` (run: {run}, given: {given}); only {} may change when resuming (or start a new --run-dir)", SCHEDULE_FIELDS.join(", "))]
    ConfigDiffers { given_by: String, field: String, run: String, given: String },
    #[error("{}: none of its {count} checkpoint(s) loads (see the warnings above); give --start-over to start again from a random network (they are kept in checkpoints/unloadable/)", dir.display())]
    NoCheckpointLoads { dir: PathBuf, count: usize },
    #[error("checkpoint {} already exists; a run never replaces a checkpoint", path.display())]
    CheckpointExists { path: PathBuf },
    #[error("the run needs about {need} of memory, more than the {available} this machine has available (the largest part, {largest}); lower batch_size, window_positions or concurrent_games")]
    TooLarge { need: String, available: String, largest: String },
    #[error("the run's latest checkpoint has a different network shape than its config")]
    NetworkShape,
    #[error("the run's checkpoints play rules '{checkpoint}', the config says '{config}'")]
    RulesDiffer { checkpoint: String, config: String },
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error(transparent)]
    Lease(#[from] crate::lease::LeaseError),
    #[error("store {store}: '{key}' cannot be used: {why}")]
    BadObject { store: String, key: String, why: String },
    #[error("no network to play with yet (none published)")]
    NoNetwork,
    #[error("store {store} has no config.toml yet: give --config (the trainer writes it when it starts a run)")]
    NoStoreConfig { store: String },
    #[error("store {store} has no config.toml: no trainer started a run there before the worker stopped ({why})")]
    NoRunYet { store: String, why: &'static str },
}

impl RunError {
    /// An I/O error while doing `op` ("read", "write", "create") on `path`.
    pub fn io(op: &'static str, path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> RunError {
        let path = path.into();
        move |source| RunError::Io { op, path, source }
    }
}
