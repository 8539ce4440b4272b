//! Setting a run up: the config (a new run's, or the run directory's with the schedule changes
//! a resume may make), the directories, the network to start from, the games on disk and the
//! replay window, the teacher and self-play settings.

use super::schedule::Schedule;
use super::{Run, RunOptions, DEFAULT_LEASE_SECONDS, DEFAULT_POLL_SECONDS};
use crate::chunk::{ChunkName, MAX_CHUNK_BYTES};
use crate::config::RunConfig;
use crate::learner::{self, checkpoint_name, find_resume_point, Learner};
use crate::lease::Lease;
use crate::metrics::{Accumulator, Log, MetricsFile};
use crate::replay::ReplayBuffer;
use crate::store::Store;
use crate::worker::{list_chunks, newest_publication, Worker};
use crate::RunError;
use engine::{record, MoveTable, Rules};
use indicatif::{ProgressBar, ProgressStyle};
use nn::checkpoint::Checkpoint;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The schedule fields a resume changes ((field, run's value, new value) each) and the config
/// the run directory records from then on.
type ScheduleChange = (Vec<(String, String, String)>, RunConfig);

/// Settle the config: a new run's, or the run directory's (checked against `--config` and
/// `--set`), with the schedule changes a resume makes. Also the config the run directory
/// recorded before them (None for a new run).
fn settle_config(
    opts: &RunOptions,
    store: &Store,
) -> Result<(RunConfig, Option<RunConfig>, Option<ScheduleChange>), RunError> {
    let recorded_path = PathBuf::from(store.describe("config.toml"));
    let recorded = match store.get("config.toml", engine::input::MAX_CONFIG_BYTES)? {
        Some(bytes) => {
            let origin = recorded_path.display().to_string();
            let text = String::from_utf8(bytes)
                .map_err(|_| crate::ConfigError::Read { path: origin.clone(), reason: "not UTF-8 text".into() })?;
            Some(RunConfig::from_stored(&text, &origin)?)
        }
        None => None,
    };
    let mut cfg = match (&opts.config, &recorded) {
        (Some(p), _) => {
            let mut c = RunConfig::load_with_sets(p, &opts.sets)?;
            if let Some(s) = opts.seed {
                c.seed = s;
            }
            if let Some(b) = opts.bootstrap {
                c.bootstrap = b;
                c.validate().map_err(|error| RunError::BootstrapInvalid {
                    config: p.clone(),
                    bootstrap: b.name().to_string(),
                    error,
                })?;
            }
            c
        }
        (None, Some(r)) => {
            if let Some(s) = opts.seed.filter(|&s| s != r.seed) {
                return Err(RunError::SeedDiffers { given: s, run: r.seed, config: recorded_path });
            }
            if let Some(b) = opts.bootstrap.filter(|&b| b != r.bootstrap) {
                return Err(RunError::BootstrapDiffers {
                    given: b.name().to_string(),
                    run: r.bootstrap.name().to_string(),
                    config: recorded_path,
                });
            }
            r.clone()
        }
        (None, None) if opts.store.is_some() => return Err(RunError::NoStoreConfig { store: store.url().to_string() }),
        (None, None) => return Err(RunError::NoConfig { dir: opts.run_dir.clone() }),
    };
    if opts.config.is_none() {
        // With --config the assignments were applied as it was read (before its network).
        for s in &opts.sets {
            cfg.set_field(s)?;
        }
    }
    let mut change = None;
    if let Some(r) = &recorded {
        if let Some((field, run, given)) = r.first_difference(&cfg) {
            // Blame `--set` when it names the field, else the `--config` file (without
            // `--config`, only a `--set` can differ from the run's own config).
            let named_by_set = opts.sets.iter().any(|s| s.split('=').next().map(str::trim) == Some(field.as_str()));
            let given_by = match (&opts.config, named_by_set) {
                (Some(p), false) => format!("{} differs from {}", p.display(), recorded_path.display()),
                _ => format!("--set {field} would change the run's config {}", recorded_path.display()),
            };
            return Err(RunError::ConfigDiffers { given_by, field, run, given });
        }
        let fields = r.schedule_changes(&cfg);
        if !fields.is_empty() {
            change = Some((fields, r.with_schedule_of(&cfg)));
        }
    }
    if let Some(b) = &opts.backend {
        cfg.backend = b.clone();
    }
    if let Some(m) = opts.max_steps {
        cfg.max_steps = m;
    }
    Ok((cfg, recorded, change))
}

/// Open (or create) the run's store and directory and set everything up to loop.
pub(super) fn open(opts: &RunOptions) -> Result<Run, RunError> {
    let url = opts.store.clone().unwrap_or_else(|| opts.run_dir.display().to_string());
    // A new directory is created only for a config that reads and checks.
    if !url.starts_with("s3://") && !Path::new(url.strip_prefix("file://").unwrap_or(&url)).exists() {
        match &opts.config {
            Some(p) => {
                RunConfig::load_with_sets(p, &opts.sets)?;
            }
            None if opts.store.is_none() => return Err(RunError::NoConfig { dir: opts.run_dir.clone() }),
            None => return Err(RunError::NoStoreConfig { store: url }),
        }
    }
    let store = Arc::new(Store::open(&url)?);
    let (cfg, recorded, change) = settle_config(opts, &store)?;
    let existing = recorded.is_some();
    check_memory(&cfg)?;
    let rules = Rules::load(&cfg.rules)?;
    let rules_tag = record::rules_tag(&rules, &cfg.rules);
    let device = nn::backend::device_by_name(&cfg.backend)?;
    cfg.precision.parse::<nn::backend::Precision>()?.check(&device, &cfg.backend)?;
    let dirs = Dirs::new(&opts.run_dir, &store);
    for d in [&dirs.run, &dirs.checkpoints, &dirs.eval, &dirs.run.join("games")] {
        std::fs::create_dir_all(d).map_err(RunError::io("create", d))?;
        // The temporary files of atomic writes that a kill interrupted.
        for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
            if e.file_name().to_str().is_some_and(|n| nn::files::is_temporary(n) || n.contains('#')) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    if !existing {
        store.put("config.toml", cfg.to_toml().into_bytes())?;
    }
    let log_path = dirs.run.join("train.log");
    let mut log = Log::open(&log_path).map_err(RunError::io("write", &log_path))?;
    let bar = if opts.progress { ProgressBar::new(cfg.max_steps) } else { ProgressBar::hidden() };
    let lease_s = if opts.lease_seconds == 0 { DEFAULT_LEASE_SECONDS } else { opts.lease_seconds };
    let lease = Lease::acquire(store.clone(), lease_s, &mut |w| log.line(&w))?;

    let (learner, resumed_from, fresh_moments) =
        load_network(&cfg, &store, &device, &rules_tag, change.as_ref(), opts.start_over, &mut |w| {
            warn(&mut log, &bar, w)
        })?;
    if let Some((changes, _)) = &change {
        let list: Vec<String> = changes.iter().map(|(f, a, b)| format!("{f} {a} -> {b}")).collect();
        log.line(&format!("schedule change at step {}: {}", learner.step(), list.join(", ")));
    }
    // The workers play the network the trainer goes on from: published unless it is already
    // the newest publication (a trainer killed between a checkpoint and its publication).
    let mut publication = newest_publication(&store)?;
    let newest_step = match publication {
        0 => None,
        n => crate::worker::read_publication(&store, n)?.map(|p| p.step),
    };
    if newest_step != Some(learner.step()) {
        let published = crate::learner::publishable(&store, learner.step(), &cfg)?;
        lease.publish(publication + 1, &published.key, learner.step())?;
        publication += 1;
    }
    let table = Arc::new(MoveTable::new(&rules));
    let chunks = list_chunks(&store)?;
    let games = load_games(&cfg, &store, &chunks, &table, &rules_tag, &mut |w| warn(&mut log, &bar, w))?;

    // A run carried over without its games (its checkpoint and config copied into a fresh run
    // directory, as a clone of the repository gets them from checkpoints/) keeps its schedule:
    // the positions its steps stand for count as played, so training resumes at the configured
    // ratio once the buffer has refilled (below), instead of waiting for the position count to
    // catch up with the step count.
    let schedule = Schedule::of(&cfg);
    let implied = schedule.positions_for(learner.step());
    let carried = implied.saturating_sub(games.positions);
    // Its first steps must not train on the few thousand positions of its first new games
    // (many times each: a pure run restarted that way twice fell from 36% to 13.5% against
    // depth 1): training waits until the buffer holds the window it had (the smaller one when
    // this resume changes `window_positions`: a carry holds the positions of its old window).
    let had_window = recorded.as_ref().map_or(cfg.window_positions, |r| r.window_positions.min(cfg.window_positions));
    let train_from =
        if carried > 0 { (implied.min(had_window as u64) as usize).max(cfg.min_positions) } else { cfg.min_positions };
    if carried > 0 {
        log.line(&format!(
            "step {} stands for {implied} positions, {} are on disk: {carried} counted as played; \
             training waits until the buffer holds {train_from} positions (its window)",
            learner.step(),
            games.positions
        ));
    }
    let teaching = games.positions + carried < schedule.bootstrap_positions;
    if teaching {
        log.line(&format!(
            "bootstrap: teacher {} plays until {} positions ({} on disk)",
            cfg.bootstrap_engine, schedule.bootstrap_positions, games.positions
        ));
    }
    // `train`: worker 0 plays in this process, numbering its games on from the store's.
    let worker = if opts.trainer_only {
        None
    } else {
        Some(Worker::open(store.clone(), &cfg, &rules_tag, table.clone(), 0, &device, &chunks)?)
    };
    log_settings(&mut log, &cfg, fresh_moments);
    if !opts.trainer_only && !cfg.overlap_selfplay {
        log.line("self-play and training steps one after the other (overlap_selfplay = false)");
    }
    let metrics_path = dirs.run.join("metrics.csv");
    let metrics = MetricsFile::open(&metrics_path, learner.step()).map_err(RunError::io("write", &metrics_path))?;
    log_start(&mut log, &cfg, &rules_tag, resumed_from, &games, opts.trainer_only.then_some(store.url()));
    style(&bar, &cfg, learner.step());
    let poll = if opts.poll_seconds > 0.0 { opts.poll_seconds } else { DEFAULT_POLL_SECONDS };
    Ok(Run {
        time_base: metrics.last_time_s,
        metrics,
        metrics_path,
        log,
        bar,
        last_ckpt_step: learner.step(),
        resumed_from,
        lease,
        publication,
        games_total: games.count,
        positions_total: games.positions,
        buffer: games.buffer,
        ingested: games.keys,
        rejected: HashSet::new(),
        carried,
        train_from,
        worker,
        was_teaching: teaching,
        poll: Duration::from_secs_f64(poll),
        last_poll: Instant::now(),
        schedule,
        learner,
        table,
        rules,
        rules_tag,
        store,
        dirs,
        start: Instant::now(),
        acc: Accumulator::default(),
        cumulative: Accumulator::default(),
        row_time: Instant::now(),
        last_loss: None,
        selfplay_time: 0.0,
        train_time: 0.0,
        session_steps: 0,
        cfg,
    })
}

/// Refuse a run whose sizes need more memory than the machine has available, before anything
/// is allocated (an allocation that fails would abort the process midway).
fn check_memory(cfg: &RunConfig) -> Result<(), RunError> {
    let Some(available) = nn::host::available_memory() else { return Ok(()) };
    let parts = cfg.memory_estimate();
    let need: u64 = parts.iter().map(|p| p.1).sum();
    if need <= available {
        return Ok(());
    }
    let (largest, bytes) = parts.into_iter().max_by_key(|p| p.1).expect("parts");
    Err(RunError::TooLarge {
        need: nn::host::format_bytes(need),
        available: nn::host::format_bytes(available),
        largest: format!("{largest}: {}", nn::host::format_bytes(bytes)),
    })
}

/// A warning: in the log and above the progress bar.
pub(super) fn warn(log: &mut Log, bar: &ProgressBar, msg: String) {
    log.line(&format!("warning: {msg}"));
    bar.println(format!("warning: {msg}"));
}

/// The network: the latest checkpoint, or a new random one at step 0 (with whether the
/// optimiser moments start fresh); a resume's schedule change is recorded in the run's config.
fn load_network(
    cfg: &RunConfig,
    store: &Store,
    device: &nn::backend::Device,
    rules_tag: &str,
    change: Option<&ScheduleChange>,
    start_over: bool,
    warn: &mut dyn FnMut(String),
) -> Result<(Learner, Option<u64>, bool), RunError> {
    let mut warnings = Vec::new();
    let found = find_resume_point(store, device, &mut |w| warnings.push(w));
    warnings.into_iter().for_each(&mut *warn);
    let found = match found {
        Ok(found) => found,
        Err(RunError::NoCheckpointLoads { .. }) if start_over => {
            warn("--start-over: no checkpoint loads; starting again from a random network at step 0".into());
            None
        }
        Err(e) => return Err(e),
    };
    let (ckpt, parent, resumed_from) = match found {
        Some((key, c)) => {
            let name = key.rsplit('/').next().map(String::from);
            let step = c.header.step;
            (c, name, Some(step))
        }
        None => {
            let c = Checkpoint::random(cfg.net(), rules_tag, cfg.seed, device);
            let name = checkpoint_name(0);
            learner::store_checkpoint(store, &c)?;
            (c, Some(name), None)
        }
    };
    if &ckpt.header.network != cfg.net() {
        return Err(RunError::NetworkShape);
    }
    if ckpt.header.rules != rules_tag {
        return Err(RunError::RulesDiffer { checkpoint: ckpt.header.rules.clone(), config: rules_tag.to_string() });
    }
    // An encoding-1 checkpoint loads widened, without its optimiser moments (see
    // `nn::checkpoint::load`); the log says so, since the first steps after it differ from a
    // plain resume.
    let fresh_moments = ckpt.header.step > 0 && ckpt.optimizer.is_none();
    let learner = Learner::new(ckpt, parent, device, cfg, rules_tag)?;
    if let Some((_, recorded)) = change {
        // The run's config.toml follows the schedule, so a plain resume keeps the new values.
        store.put("config.toml", recorded.to_toml().into_bytes())?;
    }
    Ok((learner, resumed_from, fresh_moments))
}

/// The games in the store: their count and positions, the replay window, and the chunks
/// counted.
pub(super) struct Games {
    count: u64,
    positions: u64,
    buffer: ReplayBuffer,
    keys: HashSet<String>,
}

/// Count the store's chunks (from their names) and read the newest into the replay window
/// until it is full; a chunk that does not load is skipped with a warning.
fn load_games(
    cfg: &RunConfig,
    store: &Store,
    chunks: &[(String, ChunkName, i64)],
    table: &Arc<MoveTable>,
    rules_tag: &str,
    warn: &mut dyn FnMut(String),
) -> Result<Games, RunError> {
    let mut buffer = ReplayBuffer::new(cfg.window_positions);
    let mut newest_first: Vec<&(String, ChunkName, i64)> = chunks.iter().collect();
    newest_first.sort_by_key(|(k, n, t)| std::cmp::Reverse((*t, n.worker, n.seq, k.clone())));
    for (key, name, _) in newest_first {
        if buffer.is_full() {
            break;
        }
        let loaded = match store.get(key, MAX_CHUNK_BYTES) {
            Err(e) => Err(e.to_string()),
            Ok(None) => Err("deleted since it was listed".into()),
            Ok(Some(bytes)) => crate::chunk::Chunk::from_object(name, &bytes).map_err(|e| e.to_string()),
        };
        let samples = loaded.and_then(|c| {
            let mut all = Vec::new();
            for g in c.games.iter().rev() {
                if g.rules != rules_tag {
                    return Err(format!("played under rules '{}', not '{rules_tag}'", g.rules));
                }
                all.push(g.samples_with(table, cfg.horizons()).map_err(|e| e.to_string())?);
            }
            Ok(all)
        });
        match samples {
            Ok(games) => games.into_iter().for_each(|s| buffer.push_older(s)),
            Err(e) => warn(format!("skipping game file {}: {e}", store.describe(key))),
        }
    }
    Ok(Games {
        count: chunks.iter().map(|c| c.1.games).sum(),
        positions: chunks.iter().map(|c| c.1.positions).sum(),
        buffer,
        keys: chunks.iter().map(|c| c.0.clone()).collect(),
    })
}

/// The settings a reader of the log needs besides the config: opponent games, fresh moments.
fn log_settings(log: &mut Log, cfg: &RunConfig, fresh_moments: bool) {
    if cfg.opponent_fraction > 0.0 {
        let random = match cfg.opponent_random_plies {
            0 => String::new(),
            n => format!(", after {n} random opening plies"),
        };
        let imitated = if cfg.opponent_policy_fraction > 0.0 {
            format!("; {:.0}% of its moves are policy targets", cfg.opponent_policy_fraction * 100.0)
        } else {
            String::new()
        };
        log.line(&format!(
            "opponent games: {:.0}% of self-play games have {} on one side{random}{imitated}",
            cfg.opponent_fraction * 100.0,
            cfg.opponent_engine,
        ));
    }
    if cfg.selfplay_material_mix > 0.0 && cfg.selfplay_material_mix_until_step > 0 {
        log.line(&format!(
            "self-play material mix: {} for the networks of steps before {}, then 0 (the result head alone)",
            cfg.selfplay_material_mix, cfg.selfplay_material_mix_until_step
        ));
    }
    if cfg.royal_guard && cfg.royal_guard_from_step > 0 {
        log.line(&format!(
            "royal guard: no guard for the networks of steps before {}, then the royal guard",
            cfg.royal_guard_from_step
        ));
    }
    if cfg.mate_guard && cfg.mate_guard_from_step > 0 {
        log.line(&format!(
            "mate guard: the royal guard alone for the networks of steps before {}, then the mate guard too",
            cfg.mate_guard_from_step
        ));
    }
    if cfg.average_checkpoints > 1 {
        log.line(&format!(
            "snapshot averaging: the workers play (and evaluation rates) the mean of the newest {} checkpoints (checkpoints/{}/)",
            cfg.average_checkpoints,
            crate::learner::AVERAGED_DIR
        ));
    }
    if cfg.pool_fraction > 0.0 {
        log.line(&format!(
            "pool games: {:.0}% of self-play games have an older network on one side, drawn from the newest {} checkpoints at multiples of {} steps (kept from pruning)",
            cfg.pool_fraction * 100.0,
            cfg.pool_size,
            cfg.pool_every_steps
        ));
    }
    if cfg.policy_surprise_weight > 0.0 {
        log.line(&format!(
            "policy-surprise weighting: {:.0}% of a policy target's sampling weight follows its search's KL divergence from the prior (relative to the window's mean, at most {}x), the rest uniform",
            cfg.policy_surprise_weight * 100.0,
            crate::replay::MAX_SURPRISE_RATIO
        ));
    }
    if cfg.selfplay_random_plies > 0 {
        log.line(&format!(
            "random starts: each self-play game opens with 0 to {} random plies (not recorded)",
            cfg.selfplay_random_plies
        ));
    }
    if fresh_moments {
        log.line("the checkpoint has no optimiser state (an encoding-1 checkpoint upgraded on load, or one saved without it): AdamW moments start fresh");
    }
}

fn log_start(
    log: &mut Log,
    cfg: &RunConfig,
    rules_tag: &str,
    resumed_from: Option<u64>,
    games: &Games,
    trainer_of: Option<&str>,
) {
    if let Some(url) = trainer_of {
        log.line(&format!("trainer of store {url}: training on the chunks that workers upload"));
    }
    match resumed_from {
        Some(s) if s > 0 || games.count > 0 => log.line(&format!(
            "resumed from step {s} ({} games, {} positions on disk, {} in the buffer); backend {}, seed {}",
            games.count,
            games.positions,
            games.buffer.len(),
            cfg.backend,
            cfg.seed
        )),
        _ => log.line(&format!(
            "started: {} blocks x {} channels{}{}, rules {rules_tag}, backend {}, seed {}, {} games at a time, {} visits ({} cheap)",
            cfg.net().blocks,
            cfg.net().channels,
            if cfg.net().global_pool { " with global pooling" } else { "" },
            match (cfg.net().capture_head, cfg.capture_weight > 0.0) {
                (true, true) => format!(
                    " with a capture head (weight {}, horizon {} plies)",
                    cfg.capture_weight, cfg.capture_horizon
                ),
                (true, false) => " with a capture head (untrained: capture_weight 0)".to_string(),
                _ => String::new(),
            },
            cfg.backend,
            cfg.seed,
            cfg.concurrent_games,
            cfg.visits,
            cfg.cheap_visits
        )),
    }
}

fn style(bar: &ProgressBar, cfg: &RunConfig, step: u64) {
    bar.set_style(
        ProgressStyle::with_template(if cfg.max_steps > 0 {
            "{bar:20} {pos}/{len} steps [{elapsed_precise} < {eta}] {msg}"
        } else {
            "{spinner} {pos} steps [{elapsed_precise}] {msg}"
        })
        .expect("a valid template"),
    );
    bar.set_position(step);
}

/// The run directory and its parts.
pub(super) struct Dirs {
    pub run: PathBuf,
    /// Where evaluation reads checkpoints: the store's own `checkpoints/` for a `file://`
    /// store, else copies in the run directory.
    pub checkpoints: PathBuf,
    pub eval: PathBuf,
    /// Whether the store is not a directory (checkpoints are then copied into the run
    /// directory, and metrics.csv and train.log into the store).
    pub copies: bool,
}

impl Dirs {
    fn new(run: &Path, store: &Store) -> Dirs {
        let checkpoints = match store.local_dir() {
            Some(d) => d.join("checkpoints"),
            None => run.join("checkpoints"),
        };
        Dirs { run: run.to_path_buf(), checkpoints, eval: run.join("eval"), copies: store.local_dir().is_none() }
    }
}
