//! When the loop trains and when it plays: counted, not timed, so a run repeats from its seed.

use crate::config::{Bootstrap, RunConfig};

/// Training steps due per position: teacher positions (the first `bootstrap_positions` of a
/// bootstrapped run) at their own ratio, self-play positions at `train_steps_per_1000_positions`.
pub(super) struct Schedule {
    pub bootstrap_positions: u64,
    bootstrap_ratio: f64,
    ratio: f64,
}

impl Schedule {
    pub fn of(cfg: &RunConfig) -> Schedule {
        Schedule {
            bootstrap_positions: if cfg.bootstrap == Bootstrap::None { 0 } else { cfg.bootstrap_positions },
            bootstrap_ratio: cfg.bootstrap_train_steps_per_1000_positions,
            ratio: cfg.train_steps_per_1000_positions,
        }
    }

    /// Steps due after `positions` positions.
    pub fn steps_due(&self, positions: u64) -> u64 {
        let b = positions.min(self.bootstrap_positions);
        ((b as f64 * self.bootstrap_ratio + (positions - b) as f64 * self.ratio) / 1000.0) as u64
    }

    /// The fewest positions for which `steps` steps are due (what a run's steps stand for).
    pub fn positions_for(&self, steps: u64) -> u64 {
        let boot_steps = self.bootstrap_positions as f64 * self.bootstrap_ratio / 1000.0;
        let s = steps as f64;
        if s <= boot_steps {
            (s * 1000.0 / self.bootstrap_ratio.max(1e-9)).ceil() as u64
        } else {
            self.bootstrap_positions + ((s - boot_steps) * 1000.0 / self.ratio.max(1e-9)).ceil() as u64
        }
    }
}
