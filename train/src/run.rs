//! The self-play training loop (`tenjiku train`): one process alternates self-play rounds and
//! training steps on one machine.
//!
//! # Schedule
//! Training waits until the replay buffer holds `min_positions`; from then on, a training step
//! is taken whenever the steps so far are fewer than `train_steps_per_1000_positions` per 1000
//! self-play positions so far (games on disk), else a self-play round (one move in every game) is
//! played. Both are counted, not timed, so a run repeats from the same seed.
//!
//! # Bootstrap
//! With `bootstrap = "alphabeta"` (`--bootstrap alphabeta`), the run's first
//! `bootstrap_positions` positions come from teacher games instead (`bootstrap.rs`: whole
//! alpha-beta games, `threads` at a time), trained on at `bootstrap_train_steps_per_1000_positions`;
//! then self-play takes over with the network trained so far. A run without it never plays a
//! teacher game, so pure self-play and bootstrapped runs can be compared curve for curve.
//!
//! # Run directory
//! `config.toml` (the config the run started with, network config included), `games/` (one file
//! per finished game, `replay.rs`), `checkpoints/` (`learner.rs`), `metrics.csv` and `train.log`
//! (`metrics.rs`), `eval/` (records of evaluation games). Every file is written atomically or
//! appended line by line, so a run killed at any instant (even `kill -9`) loses only the games in
//! progress and the steps since the last checkpoint; the same command resumes it: weights,
//! optimiser state and step from `checkpoints/latest`, the newest `window_positions` positions
//! from `games/`. SIGINT (Ctrl-C) stops after the current round or step with a checkpoint (a
//! second Ctrl-C kills at once).
//!
//! # Evaluation
//! Every `eval_every_checkpoints` checkpoints, the new network (MCTS at `eval_visits`) plays
//! `eval_games` arena games against the previously evaluated checkpoint and against
//! `eval_baseline` (fixed depth), and, with `eval_movetime_ms`, against plain alpha-beta at equal
//! time per move (the network's MCTS searching until the same deadline); Elo and its 95%
//! interval go into metrics.csv, the games into `eval/`.

use crate::arena::{self, Adjudication, ArenaConfig, ArenaReport};
use crate::bootstrap::{Teacher, TeacherConfig};
use crate::config::{Bootstrap, RunConfig};
use crate::learner::{self, checkpoint_name, find_latest, is_evaluated, prune, Learner};
use crate::metrics::{Accumulator, Log, MetricsFile, Row};
use crate::replay::{list_games, GameFile, ReplayBuffer};
use crate::selfplay::{mix, SelfPlay, SelfPlayConfig};
use engine::game::{Outcome, WinReason};
use engine::player::EngineSpec;
use engine::{record, MoveTable, Rules};
use indicatif::{ProgressBar, ProgressStyle};
use nn::checkpoint::{self, Checkpoint};
use nn::search::NetEvaluator;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Random plies from the start position before each pair of evaluation games: few, because a
/// random ply in Tenjiku often leaves a royal en prise and the game is then decided by the
/// opening (fair within a colour-swapped pair, but it dilutes the comparison).
pub const EVAL_OPENING_PLIES: u32 = 2;

/// What the command line gives.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// The run config; `None` = the run directory's own `config.toml`.
    pub config: Option<PathBuf>,
    pub run_dir: PathBuf,
    /// Overrides `backend`.
    pub backend: Option<String>,
    /// Overrides `seed` (a new run only: a resumed run keeps its seed).
    pub seed: Option<u64>,
    /// Overrides `max_steps`.
    pub max_steps: Option<u64>,
    /// Sets `bootstrap` (a new run; a resumed run must name its own or none).
    pub bootstrap: Option<Bootstrap>,
    /// `FIELD=VALUE` assignments applied to the config (`--set`); on a resumed run only the
    /// [`crate::config::SCHEDULE_FIELDS`] and runtime fields may change.
    pub sets: Vec<String>,
    /// Stop after this many minutes of running.
    pub max_minutes: Option<f64>,
    /// Show the progress bar (drawn only when stderr is a terminal).
    pub progress: bool,
}

/// How a run ended.
#[derive(Clone, Debug)]
pub struct RunSummary {
    pub step: u64,
    pub games: u64,
    pub positions: u64,
    pub stop: String,
    pub resumed_from: Option<u64>,
}

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn on_sigint(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
    // A second Ctrl-C ends the process at once.
    unsafe {
        libc::signal(libc::SIGINT, libc::SIG_DFL);
    }
}

/// Catch SIGINT so the loop can finish with a checkpoint.
fn install_sigint() {
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGINT, on_sigint as *const () as libc::sighandler_t);
    }
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> String + '_ {
    move |e| format!("cannot write {}: {e}", path.display())
}

/// The schedule fields a resume changes ((field, run's value, new value) each) and the config
/// the run directory records from then on.
type ScheduleChange = (Vec<(String, String, String)>, RunConfig);

/// Settle the config: a new run's, or the run directory's (checked against `--config` and
/// `--set`), with the schedule changes a resume makes.
fn settle_config(opts: &RunOptions) -> Result<(RunConfig, bool, Option<ScheduleChange>), String> {
    let recorded_path = opts.run_dir.join("config.toml");
    let recorded = if recorded_path.exists() { Some(RunConfig::load(&recorded_path).map_err(|e| e.0)?) } else { None };
    let mut cfg = match (&opts.config, &recorded) {
        (Some(p), _) => {
            let mut c = RunConfig::load(p).map_err(|e| e.0)?;
            if let Some(s) = opts.seed {
                c.seed = s;
            }
            if let Some(b) = opts.bootstrap {
                c.bootstrap = b;
                c.validate().map_err(|e| format!("{} with --bootstrap {}: {e}", p.display(), b.name()))?;
            }
            c
        }
        (None, Some(r)) => {
            if let Some(s) = opts.seed.filter(|&s| s != r.seed) {
                return Err(format!(
                    "--seed {s} differs from the run's seed {} (see {})",
                    r.seed,
                    recorded_path.display()
                ));
            }
            if let Some(b) = opts.bootstrap.filter(|&b| b != r.bootstrap) {
                return Err(format!(
                    "--bootstrap {} differs from the run's bootstrap '{}' (see {})",
                    b.name(),
                    r.bootstrap.name(),
                    recorded_path.display()
                ));
            }
            r.clone()
        }
        (None, None) => {
            return Err(format!("{} has no config.toml: give --config to start a run there", opts.run_dir.display()))
        }
    };
    for s in &opts.sets {
        cfg.set_field(s).map_err(|e| e.0)?;
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
            return Err(format!(
                "{given_by} in field `{field}` (run: {run}, given: {given}); only {} may change when resuming (or start a new --run-dir)",
                crate::config::SCHEDULE_FIELDS.join(", ")
            ));
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

/// Run (or resume) a training run until a stop condition.
pub fn run(opts: &RunOptions) -> Result<RunSummary, String> {
    let (cfg, existing, change) = settle_config(opts)?;
    let rules = Rules::load(&cfg.rules).map_err(|e| e.0)?;
    let rules_tag = record::rules_tag(&rules, &cfg.rules);
    let device = nn::backend::device_by_name(&cfg.backend)?;
    let run_dir = &opts.run_dir;
    let (ckpt_dir, games_dir, eval_dir) = (run_dir.join("checkpoints"), run_dir.join("games"), run_dir.join("eval"));
    for d in [run_dir, &ckpt_dir, &games_dir, &eval_dir] {
        std::fs::create_dir_all(d).map_err(|e| format!("cannot create {}: {e}", d.display()))?;
    }
    if !existing {
        let p = run_dir.join("config.toml");
        record::write_file_atomic(&p, &cfg.to_toml()).map_err(io(&p))?;
    }
    let log_path = run_dir.join("train.log");
    let mut log = Log::open(&log_path).map_err(io(&log_path))?;
    let bar = if opts.progress { ProgressBar::new(cfg.max_steps) } else { ProgressBar::hidden() };
    let warn = |log: &mut Log, msg: String| {
        log.line(&format!("warning: {msg}"));
        bar.println(format!("warning: {msg}"));
    };

    // The network: the latest checkpoint, or a new random one at step 0.
    let mut warnings = Vec::new();
    let found = find_latest(&ckpt_dir, &device, &mut |w| warnings.push(w));
    for w in warnings {
        warn(&mut log, w);
    }
    let (ckpt, parent, resumed_from) = match found {
        Some((path, c)) => {
            let name = path.file_name().and_then(|n| n.to_str()).map(String::from);
            let step = c.header.step;
            (c, name, Some(step))
        }
        None => {
            let c = Checkpoint::random(cfg.net(), &rules_tag, cfg.seed, &device);
            let name = checkpoint_name(0);
            let p = ckpt_dir.join(&name);
            checkpoint::save(&p, &c).map_err(|e| e.to_string())?;
            learner::write_latest(&ckpt_dir, &name).map_err(io(&ckpt_dir))?;
            (c, Some(name), None)
        }
    };
    if &ckpt.header.network != cfg.net() {
        return Err("the run's latest checkpoint has a different network shape than its config".into());
    }
    if ckpt.header.rules != rules_tag {
        return Err(format!("the run's checkpoints play rules '{}', the config says '{rules_tag}'", ckpt.header.rules));
    }
    // An encoding-1 checkpoint loads widened, without its optimiser moments (see
    // `nn::checkpoint::load`); say so, since the first steps after it differ from a plain resume.
    let fresh_moments = ckpt.header.step > 0 && ckpt.optimizer.is_none();
    let mut learner = Learner::new(ckpt, parent, &device, &cfg, &rules_tag)?;
    if let Some((changes, recorded)) = &change {
        // The run's config.toml follows the schedule, so a plain resume keeps the new values.
        let p = run_dir.join("config.toml");
        record::write_file_atomic(&p, &recorded.to_toml()).map_err(io(&p))?;
        let list: Vec<String> = changes.iter().map(|(f, a, b)| format!("{f} {a} -> {b}")).collect();
        log.line(&format!("schedule change at step {}: {}", learner.step(), list.join(", ")));
    }
    let mut last_ckpt_step = learner.step();

    // The games so far and the replay window (temporary files of a killed run are removed).
    for e in std::fs::read_dir(&games_dir).into_iter().flatten().flatten() {
        if e.file_name().to_str().is_some_and(|n| n.starts_with('.') && n.contains(".tmp")) {
            let _ = std::fs::remove_file(e.path());
        }
    }
    let table = Arc::new(MoveTable::new(&rules));
    let files = list_games(&games_dir).map_err(|e| format!("cannot read {}: {e}", games_dir.display()))?;
    let mut games_total = files.len() as u64;
    let mut positions_total: u64 = files.iter().map(|f| f.1).sum();
    let first_game = files.last().map_or(0, |f| f.0 + 1);
    let mut buffer = ReplayBuffer::new(cfg.window_positions);
    for (_, _, path) in files.iter().rev() {
        if buffer.is_full() {
            break;
        }
        let loaded =
            std::fs::read(path).map_err(|e| e.to_string()).and_then(|b| GameFile::from_bytes(&b)).and_then(|g| {
                if g.rules != rules_tag {
                    return Err(format!("played under rules '{}', not '{rules_tag}'", g.rules));
                }
                g.samples(&table)
            });
        match loaded {
            Ok(s) => buffer.push_older(s),
            Err(e) => warn(&mut log, format!("skipping game file {}: {e}", path.display())),
        }
    }

    // A run carried over without its games (its checkpoint and config copied into a fresh run
    // directory, as a clone of the repository gets them from checkpoints/) keeps its schedule:
    // the positions its steps stand for count as played, so training resumes at the configured
    // ratio once `min_positions` new ones are in the buffer, instead of waiting for the
    // position count to catch up with the step count.
    let schedule = Schedule::of(&cfg);
    let implied = schedule.positions_for(learner.step());
    let carried = implied.saturating_sub(positions_total);
    if carried > 0 {
        log.line(&format!(
            "step {} stands for {implied} positions, {positions_total} are on disk: {carried} counted as played",
            learner.step()
        ));
    }

    // Teacher games first (`--bootstrap`), then self-play, numbered on from them; self-play is
    // set up when its first round is due.
    let mut teacher = if positions_total + carried < schedule.bootstrap_positions {
        log.line(&format!(
            "bootstrap: teacher {} plays until {} positions ({} on disk)",
            cfg.bootstrap_engine, schedule.bootstrap_positions, positions_total
        ));
        Some(Teacher::new(TeacherConfig::from_run(&cfg, &rules_tag)?, table.clone(), first_game))
    } else {
        None
    };
    let sp_cfg = SelfPlayConfig::from_run(&cfg, &rules_tag)?;
    if cfg.opponent_fraction > 0.0 {
        log.line(&format!(
            "opponent games: {:.0}% of self-play games have {} on one side{}",
            cfg.opponent_fraction * 100.0,
            cfg.opponent_engine,
            match cfg.opponent_random_plies {
                0 => String::new(),
                n => format!(", after {n} random opening plies"),
            } + &if cfg.opponent_policy_fraction > 0.0 {
                format!("; {:.0}% of its moves are policy targets", cfg.opponent_policy_fraction * 100.0)
            } else {
                String::new()
            }
        ));
    }
    if fresh_moments {
        log.line("the checkpoint has no optimiser state (an encoding-1 checkpoint upgraded on load, or one saved without it): AdamW moments start fresh");
    }
    let mut selfplay: Option<SelfPlay> = None;
    let mut evaluator = NetEvaluator::new(learner.network(), &device);

    let metrics_path = run_dir.join("metrics.csv");
    let mut metrics = MetricsFile::open(&metrics_path).map_err(io(&metrics_path))?;
    let time_base = metrics.last_time_s;
    match resumed_from {
        Some(s) if s > 0 || games_total > 0 => log.line(&format!(
            "resumed from step {s} ({games_total} games, {positions_total} positions on disk, {} in the buffer); backend {}, seed {}",
            buffer.len(),
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

    install_sigint();
    bar.set_style(
        ProgressStyle::with_template(if cfg.max_steps > 0 {
            "{bar:20} {pos}/{len} steps [{elapsed_precise} < {eta}] {msg}"
        } else {
            "{spinner} {pos} steps [{elapsed_precise}] {msg}"
        })
        .expect("a valid template"),
    );
    bar.set_position(learner.step());

    let start = Instant::now();
    let mut acc = Accumulator::default();
    let mut row_time = Instant::now();
    let mut cumulative = Accumulator::default();
    let mut last_loss: Option<f64> = None;
    // Busy time of each side (for speed figures in the log).
    let (mut selfplay_time, mut train_time, mut session_steps) = (0.0f64, 0.0f64, 0u64);
    let stop = loop {
        if INTERRUPTED.load(Ordering::SeqCst) {
            break "interrupted (SIGINT)".to_string();
        }
        if cfg.max_steps > 0 && learner.step() >= cfg.max_steps {
            break format!("max_steps {} reached", cfg.max_steps);
        }
        if opts.max_minutes.is_some_and(|m| start.elapsed().as_secs_f64() >= m * 60.0) {
            break "--max-minutes reached".to_string();
        }
        let due = schedule.steps_due(positions_total + carried);
        if buffer.len() >= cfg.min_positions && learner.step() < due {
            let t = Instant::now();
            let l = learner.train_step(&buffer, &table);
            train_time += t.elapsed().as_secs_f64();
            session_steps += 1;
            acc.steps += 1;
            acc.loss_total += l.losses.total as f64;
            acc.loss_value += l.losses.value as f64;
            acc.loss_moves_left += l.losses.moves_left as f64;
            acc.loss_material += l.losses.material as f64;
            if let Some(p) = l.policy {
                acc.loss_policy += p as f64;
                acc.policy_steps += 1;
            }
            last_loss = Some(l.losses.total as f64);
            let step = learner.step();
            if step.is_multiple_of(cfg.report_every_steps) {
                let mut row = Row {
                    time_s: time_base + start.elapsed().as_secs_f64(),
                    step,
                    games: games_total,
                    positions: positions_total,
                    ..Row::default()
                };
                acc.fill(&mut row, row_time.elapsed().as_secs_f64());
                metrics.write(&row).map_err(io(&metrics_path))?;
                log.line(&report_line(&row, &cumulative));
                acc = Accumulator::default();
                row_time = Instant::now();
            }
            if step.is_multiple_of(cfg.checkpoint_every_steps) {
                let path = learner.save(&ckpt_dir)?;
                last_ckpt_step = step;
                prune(&ckpt_dir, cfg.keep_checkpoints, cfg.checkpoint_every_steps, cfg.eval_every_checkpoints);
                evaluator.set_network(learner.network());
                if let Some(sp) = selfplay.as_mut() {
                    sp.net_step = step;
                }
                log.line(&format!("checkpoint {}", path.display()));
                if is_evaluated(step, cfg.checkpoint_every_steps, cfg.eval_every_checkpoints) {
                    bar.set_message(format!("evaluating step {step}..."));
                    let mut row = evaluate(&cfg, &ckpt_dir, &eval_dir, step, &rules, &rules_tag, &mut log);
                    row.time_s = time_base + start.elapsed().as_secs_f64();
                    row.games = games_total;
                    row.positions = positions_total;
                    metrics.write(&row).map_err(io(&metrics_path))?;
                }
            }
        } else {
            let t = Instant::now();
            let teaching = positions_total + carried < schedule.bootstrap_positions;
            let finished = match teacher.as_mut().filter(|_| teaching) {
                Some(teacher) => {
                    let finished = teacher.round();
                    let n: u64 = finished.iter().map(|f| f.file.plies.len() as u64).sum();
                    acc.positions += n;
                    cumulative.positions += n;
                    finished
                }
                None => {
                    let next = teacher.as_ref().map_or(first_game, |t| t.next_game());
                    let sp = selfplay.get_or_insert_with(|| {
                        if teacher.is_some() {
                            log.line(&format!("bootstrap done: self-play from step {}", learner.step()));
                        }
                        SelfPlay::new(sp_cfg.clone(), table.clone(), next, learner.step())
                    });
                    let (finished, st) = sp.round(&mut evaluator);
                    acc.positions += st.positions;
                    cumulative.positions += st.positions;
                    acc.entropy_sum += st.entropy_sum;
                    acc.entropy_n += st.positions;
                    finished
                }
            };
            selfplay_time += t.elapsed().as_secs_f64();
            for f in finished {
                let n = f.file.plies.len() as u64;
                f.file.write(&games_dir, f.index).map_err(io(&games_dir))?;
                games_total += 1;
                positions_total += n;
                for a in [&mut acc, &mut cumulative] {
                    a.games += 1;
                    a.game_plies += n;
                    a.resigned += matches!(f.file.outcome, Outcome::Win { reason: WinReason::Resignation, .. }) as u64;
                    if let Some(wrong) = f.file.false_resign() {
                        a.would_resign += 1;
                        a.false_resign += wrong as u64;
                    }
                    if let Some(opponent) = f.opponent {
                        a.opponent_games += 1;
                        a.opponent_points += match f.file.outcome {
                            Outcome::Win { winner, .. } => (winner != opponent) as u8 as f64,
                            Outcome::Draw(_) => 0.5,
                        };
                    }
                }
                match f.file.samples(&table) {
                    Ok(s) => buffer.push_game(s),
                    Err(e) => warn(&mut log, format!("self-play game {} does not replay: {e}", f.index)),
                }
            }
        }
        let secs = start.elapsed().as_secs_f64().max(1e-9);
        bar.set_position(learner.step());
        let phase = if positions_total + carried < schedule.bootstrap_positions { "teacher " } else { "" };
        bar.set_message(format!(
            "{phase}games {games_total} positions {positions_total} (buffer {}) loss {} | {:.1} pos/s",
            buffer.len(),
            last_loss.map_or("-".into(), |l| format!("{l:.3}")),
            cumulative.positions as f64 / secs
        ));
    };
    bar.finish_and_clear();
    if learner.step() > last_ckpt_step {
        let path = learner.save(&ckpt_dir)?;
        prune(&ckpt_dir, cfg.keep_checkpoints, cfg.checkpoint_every_steps, cfg.eval_every_checkpoints);
        log.line(&format!("checkpoint {}", path.display()));
    }
    if acc.steps > 0 || acc.games > 0 {
        let mut row = Row {
            time_s: time_base + start.elapsed().as_secs_f64(),
            step: learner.step(),
            games: games_total,
            positions: positions_total,
            ..Row::default()
        };
        acc.fill(&mut row, row_time.elapsed().as_secs_f64());
        metrics.write(&row).map_err(io(&metrics_path))?;
    }
    let fr = if cumulative.would_resign > 0 {
        format!("{}/{}", cumulative.false_resign, cumulative.would_resign)
    } else {
        "none measured".into()
    };
    let rate = |n: u64, t: f64| if t > 0.0 { format!("{:.2}", n as f64 / t) } else { "-".into() };
    log.line(&format!(
        "stopped: {stop}; step {}, {games_total} games, {positions_total} positions; this session: {:.0} s, {} games, \
         false resignations {fr}; self-play {} positions in {selfplay_time:.0} s ({} positions/s while playing), \
         training {session_steps} steps in {train_time:.0} s ({} steps/s while training)",
        learner.step(),
        start.elapsed().as_secs_f64(),
        cumulative.games,
        cumulative.positions,
        rate(cumulative.positions, selfplay_time),
        rate(session_steps, train_time),
    ));
    Ok(RunSummary { step: learner.step(), games: games_total, positions: positions_total, stop, resumed_from })
}

fn report_line(row: &Row, cum: &Accumulator) -> String {
    let f = |x: Option<f64>| x.map_or("-".into(), |v| format!("{v:.3}"));
    let fr = if cum.would_resign > 0 {
        format!(" false-resign {}/{}", cum.false_resign, cum.would_resign)
    } else {
        String::new()
    };
    let opp = match (row.opponent_games, row.opponent_score) {
        (Some(n), Some(p)) => format!(" opponent games {n} scored {p:.3}"),
        _ => String::new(),
    };
    format!(
        "step {}: loss {} (policy {} value {} moves-left {} material {}) entropy {} | games {} positions {} length {} resign {}{fr}{opp} | {} pos/s {} steps/s",
        row.step,
        f(row.loss_total),
        f(row.loss_policy),
        f(row.loss_value),
        f(row.loss_moves_left),
        f(row.loss_material),
        f(row.policy_entropy),
        row.games,
        row.positions,
        f(row.game_length),
        f(row.resign_rate),
        f(row.selfplay_positions_per_s),
        f(row.train_steps_per_s),
    )
}

/// Training steps due per position: teacher positions (the first `bootstrap_positions` of a
/// bootstrapped run) at their own ratio, self-play positions at `train_steps_per_1000_positions`.
struct Schedule {
    bootstrap_positions: u64,
    bootstrap_ratio: f64,
    ratio: f64,
}

impl Schedule {
    fn of(cfg: &RunConfig) -> Schedule {
        Schedule {
            bootstrap_positions: if cfg.bootstrap == Bootstrap::None { 0 } else { cfg.bootstrap_positions },
            bootstrap_ratio: cfg.bootstrap_train_steps_per_1000_positions,
            ratio: cfg.train_steps_per_1000_positions,
        }
    }

    /// Steps due after `positions` positions.
    fn steps_due(&self, positions: u64) -> u64 {
        let b = positions.min(self.bootstrap_positions);
        ((b as f64 * self.bootstrap_ratio + (positions - b) as f64 * self.ratio) / 1000.0) as u64
    }

    /// The fewest positions for which `steps` steps are due (what a run's steps stand for).
    fn positions_for(&self, steps: u64) -> u64 {
        let boot_steps = self.bootstrap_positions as f64 * self.bootstrap_ratio / 1000.0;
        let s = steps as f64;
        if s <= boot_steps {
            (s * 1000.0 / self.bootstrap_ratio.max(1e-9)).ceil() as u64
        } else {
            self.bootstrap_positions + ((s - boot_steps) * 1000.0 / self.ratio.max(1e-9)).ceil() as u64
        }
    }
}

/// Elo and half the width of its 95% interval.
fn elo_of(r: &ArenaReport) -> (Option<f64>, Option<f64>) {
    (r.total.elo(), r.total.elo_ci95().map(|(lo, hi)| (hi - lo) / 2.0))
}

/// Rate the checkpoint at `step` against the previous evaluated one and the baseline.
fn evaluate(
    cfg: &RunConfig,
    ckpt_dir: &Path,
    eval_dir: &Path,
    step: u64,
    rules: &Rules,
    rules_tag: &str,
    log: &mut Log,
) -> Row {
    let backend = if cfg.backend == "default" { String::new() } else { format!(",backend={}", cfg.backend) };
    let mcts = |s: u64| {
        format!("mcts:checkpoint={},visits={}{backend}", ckpt_dir.join(checkpoint_name(s)).display(), cfg.eval_visits)
    };
    let prev = step.checked_sub(cfg.checkpoint_every_steps * cfg.eval_every_checkpoints);
    let mut row = Row { step, baseline: Some(cfg.eval_baseline.clone()), ..Row::default() };
    let mut play = |a: &str, b: String, name: &str| -> Option<ArenaReport> {
        let a = EngineSpec::parse(a).map_err(|e| e.to_string());
        let b = EngineSpec::parse(&b).map_err(|e| e.to_string());
        let (a, b) = match (a, b) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(e), _) | (_, Err(e)) => {
                log.line(&format!("warning: evaluation of step {step} vs {name}: {e}"));
                return None;
            }
        };
        let ac = ArenaConfig {
            a,
            b,
            rules: rules.clone(),
            rules_tag: rules_tag.to_string(),
            games: cfg.eval_games,
            opening_plies: EVAL_OPENING_PLIES,
            opening_fens: Vec::new(),
            balance: None,
            concurrency: 1,
            seed: mix(cfg.seed ^ 0xE7A1, step),
            adjudication: Adjudication {
                material: (cfg.eval_adjudicate_cp > 0).then_some((cfg.eval_adjudicate_cp, cfg.eval_adjudicate_plies)),
                max_plies: cfg.eval_max_plies,
            },
            sprt: None,
            pgn: Some(eval_dir.join(format!("step-{step:09}-vs-{name}.pgn"))),
            progress: false,
        };
        match arena::run(&ac, Arc::new(crate::make_player)) {
            Ok(r) => {
                log.line(&format!("evaluation step {step} vs {name} ({}): {}", ac.b, r.brief()));
                Some(r)
            }
            Err(e) => {
                log.line(&format!("warning: evaluation of step {step} vs {name}: {e}"));
                None
            }
        }
    };
    if let Some(p) = prev.filter(|&p| ckpt_dir.join(checkpoint_name(p)).exists()) {
        if let Some(r) = play(&mcts(step), mcts(p), "previous") {
            (row.elo_vs_previous, row.elo_vs_previous_ci) = elo_of(&r);
        }
    }
    if let Some(r) = play(&mcts(step), cfg.eval_baseline.clone(), "baseline") {
        (row.elo_vs_baseline, row.elo_vs_baseline_ci) = elo_of(&r);
    }
    if cfg.eval_movetime_ms > 0 {
        // Equal time: PUCT until the deadline against the plain alpha-beta engine.
        let ms = cfg.eval_movetime_ms;
        let a = format!("mcts:checkpoint={},time={ms}ms,gumbel=0{backend}", ckpt_dir.join(checkpoint_name(step)).display());
        if let Some(r) = play(&a, format!("alphabeta:time={ms}ms"), "equal-time") {
            (row.elo_equal_time, row.elo_equal_time_ci) = elo_of(&r);
        }
    }
    row
}
