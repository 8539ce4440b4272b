//! Setting a run up: the config (a new run's, or the run directory's with the schedule changes
//! a resume may make), the directories, the network to start from, the games on disk and the
//! replay window, the teacher and self-play settings.

use super::schedule::Schedule;
use super::{Run, RunOptions};
use crate::bootstrap::{Teacher, TeacherConfig};
use crate::config::RunConfig;
use crate::learner::{self, checkpoint_name, find_resume_point, Learner};
use crate::metrics::{Accumulator, Log, MetricsFile};
use crate::replay::{list_games, GameFile, GameFileError, ReplayBuffer, MAX_GAME_FILE_BYTES};
use crate::selfplay::SelfPlayConfig;
use crate::RunError;
use engine::{record, MoveTable, Rules};
use indicatif::{ProgressBar, ProgressStyle};
use nn::checkpoint::{self, Checkpoint};
use nn::evaluator::NetEvaluator;
use nn::files::write_atomic;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// The schedule fields a resume changes ((field, run's value, new value) each) and the config
/// the run directory records from then on.
type ScheduleChange = (Vec<(String, String, String)>, RunConfig);

/// Settle the config: a new run's, or the run directory's (checked against `--config` and
/// `--set`), with the schedule changes a resume makes.
fn settle_config(opts: &RunOptions) -> Result<(RunConfig, bool, Option<ScheduleChange>), RunError> {
    let recorded_path = opts.run_dir.join("config.toml");
    let recorded = if recorded_path.exists() { Some(RunConfig::load(&recorded_path)?) } else { None };
    let mut cfg = match (&opts.config, &recorded) {
        (Some(p), _) => {
            let mut c = RunConfig::load(p)?;
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
        (None, None) => return Err(RunError::NoConfig { dir: opts.run_dir.clone() }),
    };
    for s in &opts.sets {
        cfg.set_field(s)?;
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
    Ok((cfg, recorded.is_some(), change))
}

/// Open (or create) the run directory of `opts` and set everything up to loop.
pub(super) fn open(opts: &RunOptions) -> Result<Run, RunError> {
    let (cfg, existing, change) = settle_config(opts)?;
    check_memory(&cfg)?;
    let rules = Rules::load(&cfg.rules)?;
    let rules_tag = record::rules_tag(&rules, &cfg.rules);
    let device = nn::backend::device_by_name(&cfg.backend)?;
    let dirs = Dirs::new(&opts.run_dir);
    for d in [&dirs.run, &dirs.checkpoints, &dirs.games, &dirs.eval] {
        std::fs::create_dir_all(d).map_err(RunError::io("create", d))?;
        // The temporary files of atomic writes that a kill interrupted.
        for e in std::fs::read_dir(d).into_iter().flatten().flatten() {
            if e.file_name().to_str().is_some_and(nn::files::is_temporary) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    if !existing {
        let p = dirs.run.join("config.toml");
        write_atomic(&p, cfg.to_toml().as_bytes()).map_err(RunError::io("write", &p))?;
    }
    let log_path = dirs.run.join("train.log");
    let mut log = Log::open(&log_path).map_err(RunError::io("write", &log_path))?;
    let bar = if opts.progress { ProgressBar::new(cfg.max_steps) } else { ProgressBar::hidden() };

    let (learner, resumed_from, fresh_moments) =
        load_network(&cfg, &dirs, &device, &rules_tag, change.as_ref(), opts.start_over, &mut |w| {
            warn(&mut log, &bar, w)
        })?;
    if let Some((changes, _)) = &change {
        let list: Vec<String> = changes.iter().map(|(f, a, b)| format!("{f} {a} -> {b}")).collect();
        log.line(&format!("schedule change at step {}: {}", learner.step(), list.join(", ")));
    }
    let table = Arc::new(MoveTable::new(&rules));
    let games = load_games(&cfg, &dirs, &table, &rules_tag, &mut |w| warn(&mut log, &bar, w))?;

    // A run carried over without its games (its checkpoint and config copied into a fresh run
    // directory, as a clone of the repository gets them from checkpoints/) keeps its schedule:
    // the positions its steps stand for count as played, so training resumes at the configured
    // ratio once `min_positions` new ones are in the buffer, instead of waiting for the
    // position count to catch up with the step count.
    let schedule = Schedule::of(&cfg);
    let implied = schedule.positions_for(learner.step());
    let carried = implied.saturating_sub(games.positions);
    if carried > 0 {
        log.line(&format!(
            "step {} stands for {implied} positions, {} are on disk: {carried} counted as played",
            learner.step(),
            games.positions
        ));
    }
    // Teacher games first (`--bootstrap`), then self-play, numbered on from them; self-play is
    // set up when its first round is due.
    let teacher = if games.positions + carried < schedule.bootstrap_positions {
        log.line(&format!(
            "bootstrap: teacher {} plays until {} positions ({} on disk)",
            cfg.bootstrap_engine, schedule.bootstrap_positions, games.positions
        ));
        Some(Teacher::new(TeacherConfig::from_run(&cfg, &rules_tag)?, table.clone(), games.first_new))
    } else {
        None
    };
    let sp_cfg = SelfPlayConfig::from_run(&cfg, &rules_tag)?;
    log_settings(&mut log, &cfg, fresh_moments);
    let evaluator = NetEvaluator::new(learner.network(), &device);
    let metrics_path = dirs.run.join("metrics.csv");
    let metrics = MetricsFile::open(&metrics_path, learner.step()).map_err(RunError::io("write", &metrics_path))?;
    log_start(&mut log, &cfg, &rules_tag, resumed_from, &games);
    style(&bar, &cfg, learner.step());
    Ok(Run {
        time_base: metrics.last_time_s,
        metrics,
        metrics_path,
        log,
        bar,
        last_ckpt_step: learner.step(),
        resumed_from,
        games_total: games.count,
        positions_total: games.positions,
        first_game: games.first_new,
        buffer: games.buffer,
        carried,
        teacher,
        selfplay: None,
        sp_cfg,
        schedule,
        evaluator,
        learner,
        table,
        rules,
        rules_tag,
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
    dirs: &Dirs,
    device: &nn::backend::Device,
    rules_tag: &str,
    change: Option<&ScheduleChange>,
    start_over: bool,
    warn: &mut dyn FnMut(String),
) -> Result<(Learner, Option<u64>, bool), RunError> {
    let mut warnings = Vec::new();
    let found = find_resume_point(&dirs.checkpoints, device, &mut |w| warnings.push(w));
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
        Some((path, c)) => {
            let name = path.file_name().and_then(|n| n.to_str()).map(String::from);
            let step = c.header.step;
            (c, name, Some(step))
        }
        None => {
            let c = Checkpoint::random(cfg.net(), rules_tag, cfg.seed, device);
            let name = checkpoint_name(0);
            checkpoint::save(dirs.checkpoints.join(&name), &c)?;
            learner::write_latest(&dirs.checkpoints, &name)
                .map_err(RunError::io("write", dirs.checkpoints.join("latest")))?;
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
        let p = dirs.run.join("config.toml");
        write_atomic(&p, recorded.to_toml().as_bytes()).map_err(RunError::io("write", &p))?;
    }
    Ok((learner, resumed_from, fresh_moments))
}

/// The games on disk: their count, positions, the next game number and the replay window.
pub(super) struct Games {
    count: u64,
    positions: u64,
    first_new: u64,
    buffer: ReplayBuffer,
}

/// Read the games so far into the replay window (newest first, until it is full); a file that
/// does not load is skipped with a warning.
fn load_games(
    cfg: &RunConfig,
    dirs: &Dirs,
    table: &Arc<MoveTable>,
    rules_tag: &str,
    warn: &mut dyn FnMut(String),
) -> Result<Games, RunError> {
    let files = list_games(&dirs.games).map_err(RunError::io("read", &dirs.games))?;
    let mut buffer = ReplayBuffer::new(cfg.window_positions);
    for (_, _, path) in files.iter().rev() {
        if buffer.is_full() {
            break;
        }
        let loaded = match engine::input::read_bytes(path, MAX_GAME_FILE_BYTES) {
            Err(e) => Err(e.to_string()),
            Ok(bytes) => GameFile::from_bytes(&bytes)
                .and_then(|g| {
                    if g.rules != rules_tag {
                        return Err(GameFileError::Rules { found: g.rules, expected: rules_tag.to_string() });
                    }
                    g.samples(table)
                })
                .map_err(|e| e.to_string()),
        };
        match loaded {
            Ok(s) => buffer.push_older(s),
            Err(e) => warn(format!("skipping game file {}: {e}", path.display())),
        }
    }
    Ok(Games {
        count: files.len() as u64,
        positions: files.iter().map(|f| f.1).sum(),
        first_new: files.last().map_or(0, |f| f.0 + 1),
        buffer,
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
    if fresh_moments {
        log.line("the checkpoint has no optimiser state (an encoding-1 checkpoint upgraded on load, or one saved without it): AdamW moments start fresh");
    }
}

fn log_start(log: &mut Log, cfg: &RunConfig, rules_tag: &str, resumed_from: Option<u64>, games: &Games) {
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
            "started: {} blocks x {} channels, rules {rules_tag}, backend {}, seed {}, {} games at a time, {} visits ({} cheap)",
            cfg.net().blocks,
            cfg.net().channels,
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
    pub checkpoints: PathBuf,
    pub games: PathBuf,
    pub eval: PathBuf,
}

impl Dirs {
    fn new(run: &Path) -> Dirs {
        Dirs {
            run: run.to_path_buf(),
            checkpoints: run.join("checkpoints"),
            games: run.join("games"),
            eval: run.join("eval"),
        }
    }
}
