//! The loop's two kinds of work: a training step (with its metrics row, checkpoint and
//! evaluation when due), and a round of self-play or teacher games (with the finished games
//! written, counted and added to the window).

use super::{evaluation, report_line, setup, Run};
use crate::games::Finished;
use crate::learner::{is_evaluated, prune};
use crate::metrics::Accumulator;
use crate::selfplay::SelfPlay;
use crate::RunError;
use engine::{Outcome, WinReason};
use std::path::PathBuf;
use std::time::Instant;

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
            self.evaluator.set_network(self.learner.network());
            if let Some(sp) = self.selfplay.as_mut() {
                sp.net_step = step;
            }
            if is_evaluated(step, self.cfg.checkpoint_every_steps, self.cfg.eval_every_checkpoints) {
                self.bar.set_message(format!("evaluating step {step}..."));
                let mut row = evaluation::evaluate(
                    &self.cfg,
                    &self.dirs.checkpoints,
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

    /// A checkpoint of the learner, older ones pruned, noted in the log.
    pub(super) fn save_checkpoint(&mut self) -> Result<PathBuf, RunError> {
        let path = self.learner.save(&self.dirs.checkpoints)?;
        self.last_ckpt_step = self.learner.step();
        let c = &self.cfg;
        prune(&self.dirs.checkpoints, c.keep_checkpoints, c.checkpoint_every_steps, c.eval_every_checkpoints);
        self.log.line(&format!("checkpoint {}", path.display()));
        Ok(path)
    }

    /// One round of teacher games (while bootstrapping) or self-play (one move in every game);
    /// the games it finishes are written, counted and added to the window.
    pub(super) fn play_round(&mut self) -> Result<(), RunError> {
        let t = Instant::now();
        let teaching = self.teaching();
        let finished = match self.teacher.as_mut().filter(|_| teaching) {
            Some(teacher) => {
                let finished = teacher.round();
                let n: u64 = finished.iter().map(|f| f.file.plies.len() as u64).sum();
                self.acc.positions += n;
                self.cumulative.positions += n;
                finished
            }
            None => {
                if self.selfplay.is_none() {
                    let next = self.teacher.as_ref().map_or(self.first_game, |t| t.next_game());
                    if self.teacher.is_some() {
                        self.log.line(&format!("bootstrap done: self-play from step {}", self.learner.step()));
                    }
                    self.selfplay =
                        Some(SelfPlay::new(self.sp_cfg.clone(), self.table.clone(), next, self.learner.step()));
                }
                let sp = self.selfplay.as_mut().expect("set up above");
                let (finished, st) = sp.round(&mut self.evaluator);
                self.acc.positions += st.positions;
                self.cumulative.positions += st.positions;
                self.acc.entropy_sum += st.entropy_sum;
                self.acc.entropy_n += st.positions;
                finished
            }
        };
        self.selfplay_time += t.elapsed().as_secs_f64();
        for f in finished {
            self.record_game(f)?;
        }
        Ok(())
    }

    /// Write a finished game, count it, and add its positions to the window.
    fn record_game(&mut self, f: Finished) -> Result<(), RunError> {
        let n = f.file.plies.len() as u64;
        f.file.write(&self.dirs.games, f.index).map_err(RunError::io("write", &self.dirs.games))?;
        self.games_total += 1;
        self.positions_total += n;
        for a in [&mut self.acc, &mut self.cumulative] {
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
        match f.file.samples(&self.table) {
            Ok(s) => self.buffer.push_game(s),
            Err(e) => setup::warn(&mut self.log, &self.bar, format!("self-play game {} does not replay: {e}", f.index)),
        }
        Ok(())
    }
}
