//! The self-play training loop (`tenjiku train`): one process alternates self-play rounds and
//! training steps on one machine.
//!
//! # Schedule
//! Training waits until the replay buffer holds `min_positions` (a run carried over without its
//! games: until it holds its window again); from then on, a training step
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
//! # Run directory and store
//! A run keeps its data in a store ([`crate::store`]): `config.toml` (the config the run started
//! with, network config included), `games/` (chunks of finished games, [`crate::chunk`]),
//! `checkpoints/` (`learner.rs`) and `published/` (the networks workers play, `worker.rs`), and
//! `lease/` (one trainer per store, `lease.rs`). `tenjiku train` is a worker and the trainer in
//! one process over its run directory as a `file://` store; `tenjiku selfplay` (workers) and
//! `tenjiku learn` (the trainer) split them over machines, through the same code. The trainer's
//! `metrics.csv` and `train.log` (`metrics.rs`) and `eval/` (records of evaluation games) are in
//! its run directory, which is the store's own for a `file://` store (for another store, the two
//! files are also copied into it at every checkpoint).
//!
//! Every object is written atomically, so a run killed at any instant (even `kill -9`) loses
//! only the games in progress and the steps since the last checkpoint; the same command resumes
//! it: weights, optimiser state and step from the newest checkpoint, the newest
//! `window_positions` positions from `games/`, every chunk counted once (by its name). SIGINT
//! (Ctrl-C) stops after the current round or step with a checkpoint (a second Ctrl-C kills at
//! once).
//!
//! # Evaluation
//! Every `eval_every_checkpoints` checkpoints, the new network (MCTS at `eval_visits`) plays
//! `eval_games` arena games against the previously evaluated checkpoint and against
//! `eval_baseline` (fixed depth), and, with `eval_movetime_ms`, against plain alpha-beta at equal
//! time per move (the network's MCTS searching until the same deadline); Elo and its 95%
//! interval go into metrics.csv, the games into `eval/`.

mod evaluation;
mod schedule;
mod setup;
mod steps;

use crate::config::{Bootstrap, RunConfig};
use crate::learner::Learner;
use crate::lease::Lease;
use crate::metrics::{Accumulator, Log, MetricsFile, Row};
use crate::replay::ReplayBuffer;
use crate::store::Store;
use crate::worker::Worker;
use crate::RunError;
use engine::{MoveTable, Rules};
use indicatif::ProgressBar;
use schedule::Schedule;
use setup::Dirs;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Once};
use std::time::{Duration, Instant};

pub use evaluation::EVAL_OPENING_PLIES;

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
    /// When the run directory has checkpoints and none loads, start again from a random
    /// network (the unloadable ones stay in `checkpoints/unloadable/`) instead of refusing.
    pub start_over: bool,
    /// The run's store (`file://DIR`, `s3://BUCKET/PREFIX`); `None`: the run directory.
    pub store: Option<String>,
    /// Whether this process also plays (`train`) or only trains on what workers upload (`learn`).
    pub trainer_only: bool,
    /// The trainer's lease lapses this long after its last heartbeat (0: the default, 60 s).
    pub lease_seconds: u64,
    /// How often a trainer-only process looks for new chunks (0: the default, 2 s).
    pub poll_seconds: f64,
}

/// The default of [`RunOptions::lease_seconds`].
pub const DEFAULT_LEASE_SECONDS: u64 = 60;
/// The default of [`RunOptions::poll_seconds`].
pub const DEFAULT_POLL_SECONDS: f64 = 2.0;

/// How a run ended.
#[derive(Clone, Debug)]
pub struct RunSummary {
    pub step: u64,
    pub games: u64,
    pub positions: u64,
    pub stop: String,
    pub resumed_from: Option<u64>,
}

pub(crate) static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Catch Ctrl-C (SIGINT, and SIGTERM) so the loop can finish with a checkpoint; a second one
/// ends the process at once.
pub(crate) fn catch_interrupts() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            if INTERRUPTED.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
        });
    });
}

/// A run in progress: its settings, its state in the store and in memory, and this session's
/// counts.
struct Run {
    cfg: RunConfig,
    rules: Rules,
    rules_tag: String,
    table: Arc<MoveTable>,
    store: Arc<Store>,
    dirs: Dirs,
    log: Log,
    bar: ProgressBar,
    metrics: MetricsFile,
    metrics_path: PathBuf,
    /// Seconds the run had trained before this session (metrics' time axis goes on from it).
    time_base: f64,
    learner: Learner,
    last_ckpt_step: u64,
    resumed_from: Option<u64>,
    /// The trainer's lease on the store.
    lease: Lease,
    /// The number of the newest publication.
    publication: u64,
    schedule: Schedule,
    games_total: u64,
    positions_total: u64,
    /// Positions a carried run's steps stand for beyond those on disk (see `setup`).
    carried: u64,
    /// Positions the buffer must hold before training: `min_positions`, or for a run carried
    /// over without its games its window (the positions its steps stand for, if fewer).
    train_from: usize,
    buffer: ReplayBuffer,
    /// Chunks counted (each once), and those skipped as unusable.
    ingested: HashSet<String>,
    rejected: HashSet<String>,
    /// The worker of `tenjiku train` (none in `tenjiku learn`).
    worker: Option<Worker>,
    /// Whether the last round played teacher games (to log the switch to self-play).
    was_teaching: bool,
    poll: Duration,
    last_poll: Instant,
    start: Instant,
    /// Counts since the last metrics row, and over the session.
    acc: Accumulator,
    cumulative: Accumulator,
    row_time: Instant,
    last_loss: Option<f64>,
    /// Busy time of each side (for speed figures in the log).
    selfplay_time: f64,
    train_time: f64,
    session_steps: u64,
}

/// The most training steps behind the schedule at which a step still runs beside a round of
/// self-play ([`Run::overlap_due`]); beyond it the steps catch up alone.
const MAX_OVERLAP_BACKLOG: u64 = 8;

/// Run (or resume) a training run until a stop condition.
pub fn run(opts: &RunOptions) -> Result<RunSummary, RunError> {
    let mut run = setup::open(opts)?;
    catch_interrupts();
    let stop = loop {
        if let Some(stop) = run.stop_reason(opts) {
            break stop;
        }
        if run.training_due() {
            if run.worker.is_some() && run.overlap_due() {
                run.train_step_beside_round()?;
            } else {
                run.train_step()?;
            }
            if run.worker.is_none() && run.last_poll.elapsed() >= run.poll {
                run.poll_store()?;
            }
        } else if run.worker.is_some() {
            run.play_round()?;
        } else if run.poll_store()? == 0 {
            // Waiting for games from the workers.
            std::thread::sleep(run.poll.min(Duration::from_millis(500)));
        }
        run.show_progress();
    };
    run.finish(stop)
}

impl Run {
    fn stop_reason(&self, opts: &RunOptions) -> Option<String> {
        if INTERRUPTED.load(Ordering::SeqCst) {
            return Some("interrupted (SIGINT)".to_string());
        }
        if self.cfg.max_steps > 0 && self.learner.step() >= self.cfg.max_steps {
            return Some(format!("max_steps {} reached", self.cfg.max_steps));
        }
        if opts.max_minutes.is_some_and(|m| self.start.elapsed().as_secs_f64() >= m * 60.0) {
            return Some("--max-minutes reached".to_string());
        }
        if self.lease.is_lost() {
            return Some("lost the store's lease to another trainer".to_string());
        }
        None
    }

    /// Whether the buffer is full enough and the steps so far are behind the schedule.
    fn training_due(&self) -> bool {
        self.buffer.len() >= self.train_from && self.steps_behind() > 0
    }

    /// How many training steps the run is behind its schedule's ratio of steps to positions.
    fn steps_behind(&self) -> u64 {
        self.schedule.steps_due(self.positions_total + self.carried).saturating_sub(self.learner.step())
    }

    /// Whether the next training step runs beside a round of self-play (`overlap_selfplay`):
    /// while the steps are at most [`MAX_OVERLAP_BACKLOG`] behind the schedule. A round plays
    /// one move of every game, about `concurrent_games` positions, and one step goes with it; a
    /// ratio that wants more steps than that runs the extra steps alone.
    fn overlap_due(&self) -> bool {
        self.cfg.overlap_selfplay && self.steps_behind() <= MAX_OVERLAP_BACKLOG
    }

    fn teaching(&self) -> bool {
        self.positions_total + self.carried < self.schedule.bootstrap_positions
    }

    fn show_progress(&self) {
        let secs = self.start.elapsed().as_secs_f64().max(1e-9);
        self.bar.set_position(self.learner.step());
        let phase = match (&self.worker, self.teaching()) {
            (None, _) => "trainer ",
            (Some(_), true) => "teacher ",
            (Some(_), false) => "",
        };
        self.bar.set_message(format!(
            "{phase}games {} positions {} (buffer {}) loss {} | {:.1} pos/s",
            self.games_total,
            self.positions_total,
            self.buffer.len(),
            self.last_loss.map_or("-".into(), |l| format!("{l:.3}")),
            self.cumulative.positions as f64 / secs
        ));
    }

    /// A metrics row of the counts so far (time, step, games, positions filled in).
    fn row(&self) -> Row {
        Row {
            time_s: self.time_base + self.start.elapsed().as_secs_f64(),
            step: self.learner.step(),
            games: self.games_total,
            positions: self.positions_total,
            ..Row::default()
        }
    }

    /// The last checkpoint and metrics row, and the session's summary in the log.
    fn finish(mut self, stop: String) -> Result<RunSummary, RunError> {
        self.bar.finish_and_clear();
        if self.learner.step() > self.last_ckpt_step && !self.lease.is_lost() {
            self.save_checkpoint()?;
        }
        if self.acc.steps > 0 || self.acc.games > 0 {
            let mut row = self.row();
            self.acc.fill(&mut row, self.row_time.elapsed().as_secs_f64());
            self.metrics.write(&row).map_err(RunError::io("write", &self.metrics_path))?;
        }
        let c = &self.cumulative;
        let fr =
            if c.would_resign > 0 { format!("{}/{}", c.false_resign, c.would_resign) } else { "none measured".into() };
        let rate = |n: u64, t: f64| if t > 0.0 { format!("{:.2}", n as f64 / t) } else { "-".into() };
        let secs = self.start.elapsed().as_secs_f64();
        let played = match self.worker {
            Some(_) => format!(
                "self-play {} positions in {:.0} s ({} positions/s while playing)",
                c.positions,
                self.selfplay_time,
                rate(c.positions, self.selfplay_time)
            ),
            None => format!("{} positions from the workers ({} positions/s)", c.positions, rate(c.positions, secs)),
        };
        let line = format!(
            "stopped: {stop}; step {}, {} games, {} positions; this session: {secs:.0} s, {} games, \
             false resignations {fr}; {played}, training {} steps in {:.0} s ({} steps/s while training)",
            self.learner.step(),
            self.games_total,
            self.positions_total,
            c.games,
            self.session_steps,
            self.train_time,
            rate(self.session_steps, self.train_time),
        );
        self.log.line(&line);
        self.mirror();
        Ok(RunSummary {
            step: self.learner.step(),
            games: self.games_total,
            positions: self.positions_total,
            stop,
            resumed_from: self.resumed_from,
        })
    }
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
    let capture = row.loss_capture.map_or(String::new(), |c| format!(" captures {c:.4}"));
    format!(
        "step {}: loss {} (policy {} value {} moves-left {} material {}{capture}) entropy {} | games {} positions {} length {} resign {}{fr}{opp} | {} pos/s {} steps/s",
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
