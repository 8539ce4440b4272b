//! The loop's kinds of work: a training step (with its metrics row, checkpoint, publication and
//! evaluation when due), a round of the in-process worker's games (`train`), and a look at the
//! store for the chunks that workers uploaded (`learn`); either way finished games are counted
//! once per chunk and added to the window.

use super::{evaluation, report_line, setup, Run};
use crate::chunk::{parse_chunk_key, Chunk, ChunkName, MAX_CHUNK_BYTES};
use crate::learner::{checkpoint_name, is_evaluated, prune, to_prune, Retention};
use crate::metrics::Accumulator;
use crate::replay::{GameFile, GameFileError};
use crate::worker::{list_chunks, RoundOutput};
use crate::RunError;
use engine::{Outcome, WinReason};
use std::time::{Duration, Instant};

impl Run {
    /// One training step; then, when due, a metrics row, a checkpoint and an evaluation.
    pub(super) fn train_step(&mut self) -> Result<(), RunError> {
        let t = Instant::now();
        let l = self.learner.train_step(&self.buffer, &self.table);
        self.train_time += t.elapsed().as_secs_f64();
        self.session_steps += 1;
        let acc = &mut self.acc;
        acc.steps += 1;
        acc.loss_total += l.losses.total as f64;
        acc.loss_value += l.losses.value as f64;
        acc.loss_moves_left += l.losses.moves_left as f64;
        acc.loss_material += l.losses.material as f64;
        if l.losses.captures > 0.0 {
            acc.loss_capture += l.losses.captures as f64;
            acc.capture_steps += 1;
        }
        if let Some(p) = l.policy {
            acc.loss_policy += p as f64;
            acc.policy_steps += 1;
        }
        self.last_loss = Some(l.losses.total as f64);
        let step = self.learner.step();
        if step.is_multiple_of(self.cfg.report_every_steps) {
            let mut row = self.row();
            self.acc.fill(&mut row, self.row_time.elapsed().as_secs_f64());
            self.metrics.write(&row).map_err(RunError::io("write", &self.metrics_path))?;
            self.log.line(&report_line(&row, &self.cumulative));
            self.acc = Accumulator::default();
            self.row_time = Instant::now();
        }
        if step.is_multiple_of(self.cfg.checkpoint_every_steps) {
            self.save_checkpoint()?;
            if is_evaluated(step, self.cfg.checkpoint_every_steps, self.cfg.eval_every_checkpoints) {
                self.bar.set_message(format!("evaluating step {step}..."));
                // The network rated is the one the workers play (the mean, when averaging).
                let rated = match self.cfg.average_checkpoints {
                    1 => self.dirs.checkpoints.clone(),
                    _ => self.dirs.checkpoints.join(crate::learner::AVERAGED_DIR),
                };
                let mut row = evaluation::evaluate(
                    &self.cfg,
                    &rated,
                    &self.dirs.eval,
                    step,
                    &self.rules,
                    &self.rules_tag,
                    &mut self.log,
                );
                let now = self.row();
                (row.time_s, row.games, row.positions) = (now.time_s, now.games, now.positions);
                self.metrics.write(&row).map_err(RunError::io("write", &self.metrics_path))?;
            }
        }
        Ok(())
    }

    /// A checkpoint of the learner, published for the workers, older ones pruned, noted in the
    /// log. A copy goes into the run directory when the store is elsewhere (evaluation games
    /// read it there).
    pub(super) fn save_checkpoint(&mut self) -> Result<(), RunError> {
        self.lease.check()?;
        let (key, bytes) = self.learner.save(&self.store)?;
        let step = self.learner.step();
        let (before, now) =
            (self.cfg.selfplay_material_mix_at(self.last_ckpt_step), self.cfg.selfplay_material_mix_at(step));
        let (guard_before, guard_now) = (self.cfg.mate_guard_at(self.last_ckpt_step), self.cfg.mate_guard_at(step));
        let (royal_before, royal_now) = (self.cfg.royal_guard_at(self.last_ckpt_step), self.cfg.royal_guard_at(step));
        self.last_ckpt_step = step;
        let n = self.publication + 1;
        let published = crate::learner::publishable(&self.store, step, &self.cfg)?;
        self.lease.publish(n, &published.key, step)?;
        self.publication = n;
        let c = &self.cfg;
        prune(&self.store, &Retention::of(c));
        if self.dirs.copies {
            let p = self.dirs.checkpoints.join(checkpoint_name(step));
            nn::files::write_atomic(&p, &bytes).map_err(RunError::io("write", &p))?;
            let named = checkpoint_name(step);
            let averaged_dir = self.dirs.checkpoints.join(crate::learner::AVERAGED_DIR);
            if let Some(avg) = &published.averaged {
                std::fs::create_dir_all(&averaged_dir).map_err(RunError::io("create", &averaged_dir))?;
                let p = averaged_dir.join(&named);
                nn::files::write_atomic(&p, avg).map_err(RunError::io("write", &p))?;
            }
            for (dir, keep) in [(&self.dirs.checkpoints, Retention::of(c)), (&averaged_dir, Retention::means(c))] {
                let all = crate::learner::list_checkpoint_files(dir);
                for old in to_prune(&all, &named, &keep) {
                    let _ = std::fs::remove_file(dir.join(old));
                }
            }
        }
        let what = match published.steps[..] {
            [_] => String::new(),
            ref steps => format!(
                ": the mean of steps {} ({})",
                steps.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", "),
                self.store.describe(&published.key)
            ),
        };
        self.log.line(&format!("checkpoint {} (published as {n}{what})", self.store.describe(&key)));
        if before != now {
            self.log.line(&format!(
                "self-play material mix {before} -> {now} from this network on (selfplay_material_mix_until_step = {})",
                self.cfg.selfplay_material_mix_until_step
            ));
        }
        if royal_before != royal_now {
            self.log.line(&format!(
                "royal guard {} from this network on (royal_guard_from_step = {}; games already started keep theirs)",
                if royal_now { "on" } else { "off" },
                self.cfg.royal_guard_from_step
            ));
        }
        if guard_before != guard_now {
            self.log.line(&format!(
                "mate guard {} from this network on (mate_guard_from_step = {})",
                if guard_now { "on" } else { "off" },
                self.cfg.mate_guard_from_step
            ));
        }
        self.mirror();
        Ok(())
    }

    /// Copy metrics.csv and train.log into the store when it is not the run directory.
    pub(super) fn mirror(&self) {
        if !self.dirs.copies {
            return;
        }
        for (name, path) in [("metrics.csv", &self.metrics_path), ("train.log", &self.dirs.run.join("train.log"))] {
            if let Ok(bytes) = std::fs::read(path) {
                if let Err(e) = self.store.put(name, bytes) {
                    self.bar.println(format!("warning: {e}"));
                }
            }
        }
    }

    /// One round of the in-process worker: teacher games while bootstrapping, else one move in
    /// every self-play game (with the newest published network); the chunk of games it finishes
    /// is counted and added to the window.
    pub(super) fn play_round(&mut self) -> Result<(), RunError> {
        let t = Instant::now();
        let teaching = self.before_round()?;
        let worker = self.worker.as_mut().expect("train has a worker");
        let out = worker.round(teaching)?;
        self.after_round(out, t.elapsed().as_secs_f64());
        Ok(())
    }

    /// One training step ([`Run::train_step`]) on this thread while the in-process worker plays
    /// one round ([`Run::play_round`]) on another, so that each fills the cores the other leaves
    /// idle (Burn's CPU backend keeps ~1.5 of 2 cores busy; BENCHMARKS.md, "Self-play beside
    /// the training steps"). Deterministic: the worker takes up a new publication before the
    /// step starts (never one the step writes meanwhile), and the step trains on the window as
    /// it was before the round (its finished games are added after both end).
    pub(super) fn train_step_beside_round(&mut self) -> Result<(), RunError> {
        let t = Instant::now();
        let teaching = self.before_round()?;
        let mut worker = self.worker.take().expect("train has a worker");
        let (played, trained) = std::thread::scope(|s| {
            let round = s.spawn(|| {
                let out = worker.round(teaching);
                (out, t.elapsed().as_secs_f64())
            });
            let trained = self.train_step();
            (round.join(), trained)
        });
        self.worker = Some(worker);
        let (out, secs) = played.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        self.after_round(out?, secs);
        trained
    }

    /// Before a round: the worker takes up the newest publication and its notes are logged;
    /// returns whether the round plays teacher games.
    fn before_round(&mut self) -> Result<bool, RunError> {
        let teaching = self.teaching();
        let worker = self.worker.as_mut().expect("train has a worker");
        worker.look_for_network(Duration::ZERO)?;
        for note in worker.take_notes() {
            match note.strip_prefix("warning: ") {
                Some(w) => setup::warn(&mut self.log, &self.bar, w.to_string()),
                None => self.log.line(&note),
            }
        }
        Ok(teaching)
    }

    /// After a round (`secs` of it): its counts, and its chunk into the window.
    fn after_round(&mut self, out: RoundOutput, secs: f64) {
        if self.was_teaching && !out.teacher {
            self.log.line(&format!("bootstrap done: self-play from step {}", self.learner.step()));
        }
        self.was_teaching = out.teacher;
        for a in [&mut self.acc, &mut self.cumulative] {
            a.positions += out.positions;
        }
        self.acc.entropy_sum += out.entropy_sum;
        self.acc.entropy_n += out.entropy_n;
        self.acc.net_positions += out.net_positions;
        self.acc.net_calls += out.net_calls;
        self.acc.net_secs += out.net_secs;
        self.selfplay_time += secs;
        if let Some((key, games)) = out.chunk {
            let name = parse_chunk_key(&key).expect("a worker's chunk key parses");
            self.ingest(key, &name, games);
        }
    }

    /// Count the chunks in the store that this run has not counted yet (oldest first), and add
    /// their games to the window; returns how many. An unusable chunk is skipped with a warning
    /// naming it.
    pub(super) fn poll_store(&mut self) -> Result<usize, RunError> {
        self.last_poll = Instant::now();
        let mut new: Vec<_> = list_chunks(&self.store)?
            .into_iter()
            .filter(|(k, _, _)| !self.ingested.contains(k) && !self.rejected.contains(k))
            .collect();
        new.sort_by_key(|(k, n, t)| (*t, n.worker, n.seq, k.clone()));
        let count = new.len();
        for (key, name, _) in new {
            let loaded = match self.store.get(&key, MAX_CHUNK_BYTES) {
                Ok(Some(bytes)) => Chunk::from_object(&name, &bytes).map_err(|e| e.to_string()),
                Ok(None) => Err("deleted since it was listed".into()),
                Err(e) => Err(e.to_string()),
            };
            match loaded {
                Ok(c) => {
                    self.acc.positions += c.positions();
                    self.cumulative.positions += c.positions();
                    self.ingest(key, &name, c.games);
                }
                Err(e) => {
                    setup::warn(&mut self.log, &self.bar, format!("skipping chunk {}: {e}", self.store.describe(&key)));
                    self.rejected.insert(key);
                }
            }
        }
        Ok(count)
    }

    /// Count a chunk once and add its games to the window.
    fn ingest(&mut self, key: String, name: &ChunkName, games: Vec<GameFile>) {
        if !self.ingested.insert(key.clone()) {
            return;
        }
        debug_assert_eq!(name.games, games.len() as u64);
        for g in games {
            self.record_game(&key, g);
        }
    }

    /// Count a finished game and add its positions to the window.
    fn record_game(&mut self, key: &str, g: GameFile) {
        let n = g.plies.len() as u64;
        self.games_total += 1;
        self.positions_total += n;
        for a in [&mut self.acc, &mut self.cumulative] {
            a.games += 1;
            a.game_plies += n;
            a.resigned += matches!(g.outcome, Outcome::Win { reason: WinReason::Resignation, .. }) as u64;
            if let Some(wrong) = g.false_resign() {
                a.would_resign += 1;
                a.false_resign += wrong as u64;
            }
            if let Some(opponent) = g.opponent {
                a.opponent_games += 1;
                a.opponent_points += match g.outcome {
                    Outcome::Win { winner, .. } => (winner != opponent) as u8 as f64,
                    Outcome::Draw(_) => 0.5,
                };
            }
        }
        let samples = if g.rules != self.rules_tag {
            Err(GameFileError::Rules { found: g.rules.clone(), expected: self.rules_tag.clone() })
        } else {
            g.samples_with(&self.table, self.cfg.horizons())
        };
        match samples {
            Ok(s) => self.buffer.push_game(s),
            Err(e) => setup::warn(
                &mut self.log,
                &self.bar,
                format!("a game of chunk {} does not replay: {e}", self.store.describe(key)),
            ),
        }
    }
}
