//! The training side of a run: optimiser steps on batches from the replay buffer, and the
//! run's checkpoints.
//!
//! # Checkpoints (`RUN/checkpoints/`)
//! `step-NNNNNNNNN.ckpt` (weights, optimiser state, step, parent; written atomically by
//! [`nn::checkpoint::save`]) and `latest`, a one-line text file naming the newest one (written
//! atomically after it). Step 0 is the initial random network. Pruning keeps the newest
//! `keep_checkpoints` and every evaluated one (see [`is_evaluated`]).

use crate::replay::{Batch, ReplayBuffer};
use crate::RunError;
use engine::MoveTable;
use nn::backend::Device;
use nn::checkpoint::{self, Checkpoint, Header};
use nn::train::{Losses, TrainConfig, Trainer};
use nn::{NetConfig, Network};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use search::mix_seed;
use std::path::{Path, PathBuf};

/// File name of the checkpoint at `step`.
pub fn checkpoint_name(step: u64) -> String {
    format!("step-{step:09}.ckpt")
}

/// The step of a checkpoint file name.
pub fn parse_checkpoint_name(name: &str) -> Option<u64> {
    name.strip_prefix("step-")?.strip_suffix(".ckpt")?.parse().ok()
}

/// Checkpoints in `dir`, sorted by step.
pub fn list_checkpoints(dir: &Path) -> Vec<(u64, PathBuf)> {
    let mut v: Vec<(u64, PathBuf)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str().and_then(parse_checkpoint_name).map(|s| (s, e.path())))
        .collect();
    v.sort();
    v
}

/// Whether the checkpoint at `step` is one that evaluation rates (and pruning keeps): every
/// `eval_every`-th regular checkpoint, step 0 included (the first "previous" network).
pub fn is_evaluated(step: u64, every_steps: u64, eval_every: u64) -> bool {
    eval_every > 0 && step.is_multiple_of(every_steps) && (step / every_steps).is_multiple_of(eval_every)
}

/// Where checkpoints that do not load are moved (kept for inspection, never overwritten).
pub const UNLOADABLE_DIR: &str = "unloadable";

/// The checkpoint a run resumes from: the highest step that loads, whatever `latest` says (a
/// kill can leave `latest` behind; it is only ever read for a warning, never followed). A
/// checkpoint that does not load, or whose header names another step than its file name, is
/// moved into `checkpoints/unloadable/` with a warning, so that a later checkpoint of that step
/// never overwrites a different network. `Ok(None)`: the directory never had a checkpoint;
/// `Err`: it has (or had: `unloadable/` is not empty) checkpoints and none loads.
pub fn find_resume_point(
    dir: &Path,
    device: &Device,
    warn: &mut dyn FnMut(String),
) -> Result<Option<(PathBuf, Checkpoint)>, RunError> {
    let all = list_checkpoints(dir);
    let mut found = None;
    for (step, p) in all.iter().rev() {
        let why = match checkpoint::load(p, device) {
            Ok(c) if c.header.step == *step => {
                found = Some((p.clone(), c));
                break;
            }
            Ok(c) => format!("its header says step {}", c.header.step),
            Err(e) => e.to_string(),
        };
        let moved = set_aside(dir, p);
        warn(format!("checkpoint {} does not load ({why}); moved to {}", p.display(), moved.display()));
    }
    if let Some((path, c)) = &found {
        let named = std::fs::read_to_string(dir.join("latest")).unwrap_or_default();
        let named = named.trim();
        match parse_checkpoint_name(named) {
            _ if named.contains(['/', '\\']) => {
                warn(format!("checkpoints/latest names '{named}', outside this directory; ignored"))
            }
            Some(s) if s == c.header.step => {}
            Some(s) => warn(format!(
                "checkpoints/latest names step {s}; resuming from step {}, the newest checkpoint that loads ({})",
                c.header.step,
                path.display()
            )),
            None if named.is_empty() => {}
            None => warn(format!("checkpoints/latest names '{named}', not a checkpoint; ignored")),
        }
    }
    let set_aside_before = std::fs::read_dir(dir.join(UNLOADABLE_DIR)).map_or(0, |d| d.count());
    match found {
        None if !all.is_empty() || set_aside_before > 0 => {
            Err(RunError::NoCheckpointLoads { dir: dir.to_path_buf(), count: all.len().max(set_aside_before) })
        }
        found => Ok(found),
    }
}

/// Move a checkpoint file into `checkpoints/unloadable/` (under a new name if one is there
/// already); returns where it went. A file that cannot be moved stays where it is.
pub fn set_aside(dir: &Path, path: &Path) -> PathBuf {
    let aside = dir.join(UNLOADABLE_DIR);
    let _ = std::fs::create_dir_all(&aside);
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut target = aside.join(&name);
    let mut n = 1;
    while target.exists() {
        target = aside.join(format!("{name}.{n}"));
        n += 1;
    }
    match std::fs::rename(path, &target) {
        Ok(()) => target,
        Err(_) => path.to_path_buf(),
    }
}

/// Write `name` into `dir/latest` atomically.
pub fn write_latest(dir: &Path, name: &str) -> std::io::Result<()> {
    nn::files::write_atomic(&dir.join("latest"), format!("{name}\n").as_bytes())
}

/// Losses of one step, with the policy loss per policy-target position.
#[derive(Clone, Copy, Debug, Default)]
pub struct StepLosses {
    pub losses: Losses,
    /// `losses.policy` rescaled to the positions that have a policy target (None if none had).
    pub policy: Option<f32>,
}

/// The network being trained.
pub struct Learner {
    trainer: Trainer,
    net_config: NetConfig,
    rules_tag: String,
    step: u64,
    seed: u64,
    batch_size: usize,
    material_scale: f32,
    batch: Batch,
    /// File name of the checkpoint this training continues from.
    parent: Option<String>,
}

impl Learner {
    /// Continue training `ckpt` (weights, optimiser state if any, step).
    pub fn new(
        ckpt: Checkpoint,
        parent: Option<String>,
        device: &Device,
        cfg: &crate::config::RunConfig,
        rules_tag: &str,
    ) -> Result<Learner, RunError> {
        let tc = TrainConfig {
            lr: cfg.lr,
            weight_decay: cfg.weight_decay,
            value_weight: cfg.value_weight,
            moves_left_weight: cfg.moves_left_weight,
            material_weight: cfg.material_weight,
        };
        let mut trainer = Trainer::new(ckpt.network, device, tc);
        if let Some(o) = &ckpt.optimizer {
            trainer.load_optimizer_state(o)?;
        }
        Ok(Learner {
            trainer,
            net_config: ckpt.header.network.clone(),
            rules_tag: rules_tag.to_string(),
            step: ckpt.header.step,
            seed: cfg.seed,
            batch_size: cfg.batch_size,
            material_scale: cfg.material_scale,
            batch: Batch::default(),
            parent,
        })
    }

    /// Training steps taken in the run.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// The current network (inference mode, plain device).
    pub fn network(&self) -> Network {
        self.trainer.network()
    }

    /// One optimiser step on a batch drawn from `buffer` (the draw is seeded by the run's seed and
    /// the step number, so a resumed run draws as the original would have).
    pub fn train_step(&mut self, buffer: &ReplayBuffer, table: &MoveTable) -> StepLosses {
        let mut rng = ChaCha8Rng::seed_from_u64(mix_seed(self.seed ^ 0x7EA1, self.step));
        buffer.sample_batch(&mut rng, self.batch_size, table, self.material_scale, &mut self.batch);
        let losses = self.trainer.step(&self.batch.as_train_batch());
        self.step += 1;
        let pp = self.batch.policy_positions;
        let policy = (pp > 0).then(|| losses.policy * self.batch.size as f32 / pp as f32);
        StepLosses { losses, policy }
    }

    /// Save a checkpoint of the current step into `dir` and point `latest` at it. Returns its
    /// path.
    pub fn save(&mut self, dir: &Path) -> Result<PathBuf, RunError> {
        let name = checkpoint_name(self.step);
        let path = dir.join(&name);
        let mut header = Header::new(self.net_config.clone(), &self.rules_tag);
        header.step = self.step;
        header.parent = self.parent.clone();
        if path.exists() {
            // Never reached in a run (a resume starts from the newest checkpoint, and sets aside
            // the ones above it that do not load); a checkpoint file is never replaced.
            return Err(RunError::CheckpointExists { path });
        }
        let ckpt =
            Checkpoint { header, network: self.trainer.network(), optimizer: Some(self.trainer.optimizer_state()) };
        checkpoint::save(&path, &ckpt)?;
        write_latest(dir, &name).map_err(RunError::io("write", dir.join("latest")))?;
        self.parent = Some(name);
        Ok(path)
    }
}

/// Delete checkpoints beyond the newest `keep`, sparing evaluated ones and `latest`'s.
pub fn prune(dir: &Path, keep: usize, every_steps: u64, eval_every: u64) {
    let all = list_checkpoints(dir);
    let latest = std::fs::read_to_string(dir.join("latest")).unwrap_or_default();
    let n = all.len();
    for (i, (step, path)) in all.into_iter().enumerate() {
        let newest = i + keep >= n;
        let named = path.file_name().and_then(|f| f.to_str()) == Some(latest.trim());
        if !newest && !named && !is_evaluated(step, every_steps, eval_every) && step != 0 {
            let _ = std::fs::remove_file(&path);
        }
    }
}
