//! The training side of a run: optimiser steps on batches from the replay buffer, and the
//! run's checkpoints.
//!
//! # Checkpoints (`RUN/checkpoints/`)
//! `step-NNNNNNNNN.ckpt` (weights, optimiser state, step, parent; written atomically by
//! [`nn::checkpoint::save`]) and `latest`, a one-line text file naming the newest one (written
//! atomically after it). Step 0 is the initial random network. Pruning keeps the newest
//! `keep_checkpoints` and every evaluated one (see [`is_evaluated`]).

use crate::replay::{Batch, ReplayBuffer, Targets};
use crate::store::{Store, StoreError};
use crate::RunError;
use engine::MoveTable;
use nn::backend::Device;
use nn::checkpoint::MAX_CHECKPOINT_BYTES;
use nn::checkpoint::{self, Checkpoint, Header};
use nn::train::{Losses, TrainConfig, Trainer};
use nn::NetConfig;
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

/// The folder of the checkpoints in a store.
pub const CHECKPOINTS: &str = "checkpoints";

/// The key of the checkpoint at `step`.
pub fn checkpoint_key(step: u64) -> String {
    format!("{CHECKPOINTS}/{}", checkpoint_name(step))
}

/// Checkpoints in the store (directly under `checkpoints/`), sorted by step: `(step, key)`.
pub fn list_checkpoints(store: &Store) -> Result<Vec<(u64, String)>, StoreError> {
    list_checkpoints_in(store, CHECKPOINTS)
}

/// Checkpoints directly under the store folder `dir`, sorted by step: `(step, key)`.
fn list_checkpoints_in(store: &Store, dir: &str) -> Result<Vec<(u64, String)>, StoreError> {
    let mut v: Vec<(u64, String)> = store
        .list(dir)?
        .into_iter()
        .filter_map(|e| {
            let name = e.key.strip_prefix(dir)?.strip_prefix('/')?;
            parse_checkpoint_name(name).map(|s| (s, e.key.clone()))
        })
        .collect();
    v.sort();
    Ok(v)
}

/// Checkpoint files in a local directory, sorted by step: `(step, file name)`.
pub fn list_checkpoint_files(dir: &Path) -> Vec<(u64, String)> {
    let mut v: Vec<(u64, String)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_string();
            parse_checkpoint_name(&name).map(|s| (s, name))
        })
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
/// checkpoint that does not load, or whose header names another step than its name, is moved
/// into `checkpoints/unloadable/` with a warning, so that a later checkpoint of that step never
/// overwrites a different network. `Ok(None)`: the store never had a checkpoint; `Err`: it has
/// (or had: `unloadable/` is not empty) checkpoints and none loads.
pub fn find_resume_point(
    store: &Store,
    device: &Device,
    warn: &mut dyn FnMut(String),
) -> Result<Option<(String, Checkpoint)>, RunError> {
    let all = list_checkpoints(store)?;
    let mut found = None;
    for (step, key) in all.iter().rev() {
        let shown = store.describe(key);
        let loaded = match store.get(key, MAX_CHECKPOINT_BYTES) {
            Ok(Some(bytes)) => checkpoint::from_bytes(Path::new(&shown), &bytes, device).map_err(|e| e.to_string()),
            Ok(None) => continue, // deleted since the listing (pruned by another process)
            Err(e) => Err(e.to_string()),
        };
        let why = match loaded {
            Ok(c) if c.header.step == *step => {
                found = Some((key.clone(), c));
                break;
            }
            Ok(c) => format!("its header says step {}", c.header.step),
            Err(e) => e,
        };
        let moved = set_aside(store, key);
        warn(format!("checkpoint {shown} does not load ({why}); moved to {}", store.describe(&moved)));
    }
    if let Some((key, c)) = &found {
        let named = store.get(&format!("{CHECKPOINTS}/latest"), 4096).ok().flatten().unwrap_or_default();
        let named = String::from_utf8_lossy(&named);
        let named = named.trim();
        match parse_checkpoint_name(named) {
            _ if named.contains(['/', '\\']) => {
                warn(format!("checkpoints/latest names '{named}', outside this directory; ignored"))
            }
            Some(s) if s == c.header.step => {}
            Some(s) => warn(format!(
                "checkpoints/latest names step {s}; resuming from step {}, the newest checkpoint that loads ({})",
                c.header.step,
                store.describe(key)
            )),
            None if named.is_empty() => {}
            None => warn(format!("checkpoints/latest names '{named}', not a checkpoint; ignored")),
        }
    }
    let set_aside_before = store.list(&format!("{CHECKPOINTS}/{UNLOADABLE_DIR}"))?.len();
    match found {
        None if !all.is_empty() || set_aside_before > 0 => Err(RunError::NoCheckpointLoads {
            dir: PathBuf::from(store.describe(CHECKPOINTS)),
            count: all.len().max(set_aside_before),
        }),
        found => Ok(found),
    }
}

/// Move a checkpoint into `checkpoints/unloadable/` (under a new name if one is there already);
/// returns where it went. One that cannot be moved stays where it is.
pub fn set_aside(store: &Store, key: &str) -> String {
    let name = key.rsplit('/').next().unwrap_or(key).to_string();
    let Ok(Some(bytes)) = store.get(key, MAX_CHECKPOINT_BYTES) else { return key.to_string() };
    for n in 0..1000 {
        let target = match n {
            0 => format!("{CHECKPOINTS}/{UNLOADABLE_DIR}/{name}"),
            n => format!("{CHECKPOINTS}/{UNLOADABLE_DIR}/{name}.{n}"),
        };
        match store.create(&target, bytes.clone()) {
            Ok(true) => {
                let _ = store.delete(key);
                return target;
            }
            Ok(false) => continue,
            Err(_) => break,
        }
    }
    key.to_string()
}

/// Write `name` into `checkpoints/latest` (atomically).
pub fn write_latest(store: &Store, name: &str) -> Result<(), StoreError> {
    store.put(&format!("{CHECKPOINTS}/latest"), format!("{name}\n").into_bytes())
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
    targets: Targets,
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
            capture_weight: cfg.capture_weight,
        };
        let captures = ckpt.network.has_capture_head() && cfg.capture_weight > 0.0;
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
            targets: Targets {
                material_scale: cfg.material_scale,
                q_weight: cfg.value_q_weight,
                captures,
                surprise_weight: cfg.policy_surprise_weight,
            },
            batch: Batch::default(),
            parent,
        })
    }

    /// Training steps taken in the run.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// One optimiser step on a batch drawn from `buffer` (the draw is seeded by the run's seed and
    /// the step number, so a resumed run draws as the original would have).
    pub fn train_step(&mut self, buffer: &ReplayBuffer, table: &MoveTable) -> StepLosses {
        let mut rng = ChaCha8Rng::seed_from_u64(mix_seed(self.seed ^ 0x7EA1, self.step));
        buffer.sample_batch(&mut rng, self.batch_size, table, self.targets, &mut self.batch);
        let losses = self.trainer.step(&self.batch.as_train_batch());
        self.step += 1;
        let pp = self.batch.policy_positions;
        let policy = (pp > 0).then(|| losses.policy * self.batch.size as f32 / pp as f32);
        StepLosses { losses, policy }
    }

    /// Save a checkpoint of the current step into the store (created, never replaced) and
    /// point `latest` at it. Returns its key and bytes.
    pub fn save(&mut self, store: &Store) -> Result<(String, Vec<u8>), RunError> {
        let name = checkpoint_name(self.step);
        let key = checkpoint_key(self.step);
        let mut header = Header::new(self.net_config.clone(), &self.rules_tag);
        header.step = self.step;
        header.parent = self.parent.clone();
        let ckpt =
            Checkpoint { header, network: self.trainer.network(), optimizer: Some(self.trainer.optimizer_state()) };
        let bytes = store_checkpoint(store, &ckpt)?;
        self.parent = Some(name);
        Ok((key, bytes))
    }
}

/// Write `ckpt` into the store as `checkpoints/step-NNNNNNNNN.ckpt` (created once: never in a
/// run does a checkpoint replace another, since a resume starts from the newest and sets aside
/// the ones above it that do not load) and point `latest` at it. Returns its bytes.
pub fn store_checkpoint(store: &Store, ckpt: &Checkpoint) -> Result<Vec<u8>, RunError> {
    let step = ckpt.header.step;
    let key = checkpoint_key(step);
    let (bytes, _) = checkpoint::to_bytes(Path::new(&store.describe(&key)), ckpt)?;
    if !store.create(&key, bytes.clone())? {
        return Err(RunError::CheckpointExists { path: PathBuf::from(store.describe(&key)) });
    }
    write_latest(store, &checkpoint_name(step))?;
    Ok(bytes)
}

/// The folder of a run's averaged networks (`average_checkpoints` > 1), inside `checkpoints/`.
pub const AVERAGED_DIR: &str = "averaged";

/// The key of the averaged network at `step`.
pub fn averaged_key(step: u64) -> String {
    format!("{CHECKPOINTS}/{AVERAGED_DIR}/{}", checkpoint_name(step))
}

/// The network to publish for the checkpoint at `step`.
pub struct Publishable {
    /// Its key in the store.
    pub key: String,
    /// The steps of the checkpoints it is the mean of (`[step]` when it is the checkpoint itself).
    pub steps: Vec<u64>,
    /// The bytes of the averaged network, when one was written.
    pub averaged: Option<Vec<u8>>,
}

/// The network the workers get for the checkpoint at `step`: the checkpoint itself, or with
/// `cfg.average_checkpoints` > 1 the mean of the newest that many checkpoints up to `step` (the
/// random network of step 0 left out unless it is the only one; fewer early in a run), written
/// to `checkpoints/averaged/` under the step's name. Older means are pruned as checkpoints are
/// (the newest `keep_checkpoints` and the evaluated ones stay).
pub fn publishable(store: &Store, step: u64, cfg: &crate::config::RunConfig) -> Result<Publishable, RunError> {
    if cfg.average_checkpoints <= 1 {
        return Ok(Publishable { key: checkpoint_key(step), steps: vec![step], averaged: None });
    }
    let all = list_checkpoints(store)?;
    let mut inputs: Vec<(u64, String)> = all.into_iter().filter(|(s, _)| *s <= step && (*s > 0 || step == 0)).collect();
    let from = inputs.len().saturating_sub(cfg.average_checkpoints);
    inputs.drain(..from);
    let mut mean: Option<checkpoint::Averager> = None;
    for (_, key) in &inputs {
        let shown = PathBuf::from(store.describe(key));
        let bytes = store.get(key, MAX_CHECKPOINT_BYTES)?.ok_or_else(|| RunError::BadObject {
            store: store.url().to_string(),
            key: key.clone(),
            why: "a checkpoint to average was deleted while the run uses it".into(),
        })?;
        // Averaged on the CPU whatever the run trains on: a few megabytes, once a checkpoint.
        let ckpt = checkpoint::from_bytes(&shown, &bytes, &nn::backend::cpu_device())?;
        match mean.as_mut() {
            None => mean = Some(checkpoint::Averager::new(shown, ckpt)),
            Some(m) => m.add(shown, ckpt)?,
        }
    }
    let Some(mean) = mean else {
        return Err(RunError::BadObject {
            store: store.url().to_string(),
            key: checkpoint_key(step),
            why: "no checkpoint to average at this step".into(),
        });
    };
    let key = averaged_key(step);
    let ckpt = mean.finish();
    let (bytes, _) = checkpoint::to_bytes(Path::new(&store.describe(&key)), &ckpt)?;
    store.put(&key, bytes.clone())?;
    if let Ok(means) = list_checkpoints_in(store, &format!("{CHECKPOINTS}/{AVERAGED_DIR}")) {
        let newest = checkpoint_name(step);
        for old in to_prune(&means, &newest, &Retention::means(cfg)) {
            let _ = store.delete(&old);
        }
    }
    Ok(Publishable { key, steps: inputs.iter().map(|(s, _)| *s).collect(), averaged: Some(bytes) })
}

/// What pruning keeps: the newest `keep` checkpoints, the evaluated ones (every `eval_every`-th
/// of those written every `every_steps`), step 0, the one `latest` names, and with pool games
/// on the pool of the newest checkpoint ([`pool_of`]: the newest `pool.1` checkpoints below it
/// at multiples of `pool.0` steps).
#[derive(Clone, Copy, Debug)]
pub struct Retention {
    pub keep: usize,
    pub every_steps: u64,
    pub eval_every: u64,
    pub pool: Option<(u64, usize)>,
}

impl Retention {
    /// The run's checkpoints.
    pub fn of(cfg: &crate::config::RunConfig) -> Retention {
        Retention {
            pool: (cfg.pool_fraction > 0.0).then_some((cfg.pool_every_steps, cfg.pool_size)),
            ..Retention::means(cfg)
        }
    }

    /// The averaged means (`checkpoints/averaged/`): no pool of them.
    pub fn means(cfg: &crate::config::RunConfig) -> Retention {
        Retention {
            keep: cfg.keep_checkpoints,
            every_steps: cfg.checkpoint_every_steps,
            eval_every: cfg.eval_every_checkpoints,
            pool: None,
        }
    }
}

/// The pool among `all` (`(step, name)`, sorted by step): the newest `size` at multiples of
/// `every` steps, step 0 (the random network) left out, below `below` steps.
pub fn pool_of(all: &[(u64, String)], every: u64, size: usize, below: u64) -> Vec<(u64, String)> {
    let mut pool: Vec<(u64, String)> =
        all.iter().filter(|(s, _)| *s > 0 && *s < below && s.is_multiple_of(every)).cloned().collect();
    pool.drain(..pool.len().saturating_sub(size));
    pool
}

/// Which of `all` (`(step, name)`, sorted by step) pruning deletes: what `keep` does not keep.
pub fn to_prune(all: &[(u64, String)], latest: &str, keep: &Retention) -> Vec<String> {
    let n = all.len();
    let latest = latest.trim();
    let pool: Vec<u64> = match keep.pool {
        // The pool of the newest checkpoint's network (the next one's adds that network's step
        // when it is a multiple, and drops the oldest).
        Some((every, size)) => {
            let newest = all.last().map_or(0, |(s, _)| *s);
            pool_of(all, every, size, newest).into_iter().map(|(s, _)| s).collect()
        }
        None => Vec::new(),
    };
    all.iter()
        .enumerate()
        .filter(|(i, (step, name))| {
            let newest = i + keep.keep >= n;
            let named = name.rsplit('/').next() == Some(latest);
            let evaluated = is_evaluated(*step, keep.every_steps, keep.eval_every);
            !newest && !named && !evaluated && *step != 0 && !pool.contains(step)
        })
        .map(|(_, (_, name))| name.clone())
        .collect()
}

/// Delete the store's checkpoints that `keep` does not keep (`latest`'s is read from the store).
pub fn prune(store: &Store, keep: &Retention) {
    let Ok(all) = list_checkpoints(store) else { return };
    let latest = store.get(&format!("{CHECKPOINTS}/latest"), 4096).ok().flatten().unwrap_or_default();
    for key in to_prune(&all, &String::from_utf8_lossy(&latest), keep) {
        let _ = store.delete(&key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(steps: &[u64]) -> Vec<(u64, String)> {
        steps.iter().map(|&s| (s, format!("checkpoints/{}", checkpoint_name(s)))).collect()
    }

    #[test]
    fn pruning_keeps_the_newest_the_evaluated_and_the_pool() {
        let all = names(&[0, 100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]);
        let latest = checkpoint_name(1000);
        let keep = Retention { keep: 2, every_steps: 100, eval_every: 4, pool: None };
        let pruned: Vec<String> = to_prune(&all, &latest, &keep);
        let want: Vec<String> =
            [100, 200, 300, 500, 600, 700].iter().map(|&s| format!("checkpoints/{}", checkpoint_name(s))).collect();
        assert_eq!(pruned, want, "step 0, the evaluated 400 and 800, the newest two stay");
        // A pool of the newest three at multiples of 300 (step 0 is not one): 300, 600, 900.
        let pool = Retention { pool: Some((300, 3)), ..keep };
        let pruned = to_prune(&all, &latest, &pool);
        let want: Vec<String> =
            [100, 200, 500, 700].iter().map(|&s| format!("checkpoints/{}", checkpoint_name(s))).collect();
        assert_eq!(pruned, want);
        let two = Retention { pool: Some((300, 2)), ..keep };
        assert!(to_prune(&all, &latest, &two).contains(&format!("checkpoints/{}", checkpoint_name(300))));
        // What a worker draws from: older than the network playing, the newest `size`.
        let steps = |v: Vec<(u64, String)>| v.into_iter().map(|(s, _)| s).collect::<Vec<_>>();
        assert_eq!(steps(pool_of(&all, 300, 3, 900)), [300, 600]);
        assert_eq!(steps(pool_of(&all, 300, 3, 901)), [300, 600, 900]);
        assert_eq!(steps(pool_of(&all, 200, 2, u64::MAX)), [800, 1000]);
        assert!(pool_of(&all, 300, 3, 300).is_empty(), "step 0 is never in the pool");
    }
}
