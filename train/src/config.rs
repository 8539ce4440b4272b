//! The settings of a self-play training run (`configs/{tiny,cpu,gpu}.toml`, every field commented
//! there), read from TOML with unknown fields rejected, validated field by field, and compared
//! with the config a run directory was started with.
//!
//! A run config names its network config by path (`network = "net-cpu.toml"`, resolved against
//! the config file's directory, then the working directory); the network config itself is copied
//! into the run's `config.toml` as the `[net]` table, so a run directory is self-contained.
//!
//! Every error is one line naming the file and the field.

use nn::NetConfig;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// A value of a run config that is out of its range or does not fit with the others: the
/// field and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("field `{field}` {why}")]
pub struct FieldError {
    pub field: &'static str,
    pub why: String,
}

/// A run config that cannot be used; one line naming the file (or `--set`) and the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {reason}")]
    Read { path: String, reason: String },
    /// TOML that does not parse, or a field of the wrong type, missing or unknown.
    #[error("{origin}{}: {msg}", line.map(|l| format!(" line {l}")).unwrap_or_default())]
    Toml { origin: String, line: Option<usize>, msg: String },
    #[error("{origin}: {error}")]
    Field { origin: String, error: FieldError },
    #[error("{origin}: field `network`: {why}")]
    Network { origin: String, why: String },
    #[error("{origin}: table `net`: {error}")]
    NetTable { origin: String, error: nn::network::ConfigError },
    #[error("--set '{assignment}': expected FIELD=VALUE, e.g. lr=0.0003")]
    SetSyntax { assignment: String },
    #[error("--set {field}: no such field (expected a top-level field of a run config, see configs/cpu.toml)")]
    SetUnknownField { field: String },
    #[error("--set {field}={value}: {why}")]
    SetValue { field: String, value: String, why: String },
    #[error("unknown bootstrap '{found}' (expected none or alphabeta)")]
    Bootstrap { found: String },
}

fn default_bootstrap_engine() -> String {
    "alphabeta:depth=2".into()
}
fn default_bootstrap_random_plies() -> u32 {
    8
}
fn default_bootstrap_ratio() -> f64 {
    50.0
}
fn default_capture_horizon() -> u32 {
    4
}

fn default_average_checkpoints() -> usize {
    1
}
fn default_pool_size() -> usize {
    8
}
fn default_pool_every_steps() -> u64 {
    1000
}
fn default_overlap_selfplay() -> bool {
    true
}
fn default_precision() -> String {
    "f32".into()
}

fn default_adjudicate_plies() -> u32 {
    16
}

fn default_eval_opening_plies() -> u32 {
    crate::run::EVAL_OPENING_PLIES
}

fn default_opponent_engine() -> String {
    "alphabeta:depth=2,tt=8".into()
}

/// Where a run's first positions come from (`bootstrap`, or `tenjiku train --bootstrap`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Bootstrap {
    /// Pure self-play from a random network.
    #[default]
    None,
    /// The first `bootstrap_positions` positions come from games of the alpha-beta teacher
    /// (`bootstrap.rs`).
    Alphabeta,
}

impl Bootstrap {
    pub fn parse(s: &str) -> Result<Bootstrap, ConfigError> {
        match s {
            "none" => Ok(Bootstrap::None),
            "alphabeta" => Ok(Bootstrap::Alphabeta),
            _ => Err(ConfigError::Bootstrap { found: s.to_string() }),
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Bootstrap::None => "none",
            Bootstrap::Alphabeta => "alphabeta",
        }
    }
}

/// Every setting of a run. Field meanings: the comments of `configs/cpu.toml`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunConfig {
    // --- network and machine ---
    pub network: String,
    pub rules: String,
    pub backend: String,
    /// Float type of self-play's network calls: "f32", "bf16" or "f16" (training stays f32).
    #[serde(default = "default_precision")]
    pub precision: String,
    pub seed: u64,
    /// Worker threads of the search driver (tree work between network calls).
    pub threads: usize,
    /// `tenjiku train`: run each training step beside a round of self-play (on two threads), so
    /// each uses the cores the other leaves idle. Off: one after the other.
    #[serde(default = "default_overlap_selfplay")]
    pub overlap_selfplay: bool,

    // --- self-play ---
    pub concurrent_games: usize,
    pub visits: u32,
    pub gumbel_considered: usize,
    pub cheap_visits: u32,
    pub full_search_fraction: f64,
    pub temperature_plies: u32,
    pub resign_threshold: f32,
    pub resign_plies: u32,
    pub resign_playout_fraction: f64,
    pub max_plies: u32,
    /// Share of self-play games in which one side (alternating colour) is `opponent_engine`
    /// instead of the network (`selfplay.rs`); 0 = pure self-play.
    #[serde(default)]
    pub opponent_fraction: f64,
    #[serde(default = "default_opponent_engine")]
    pub opponent_engine: String,
    /// Uniformly random plies that open each opponent game, so those games cover the kind of
    /// positions the arena's random openings give (0 = the start position).
    #[serde(default)]
    pub opponent_random_plies: u32,
    /// Share of the opponent's moves that are also policy targets (one-hot on its move, as
    /// the bootstrap teacher's are), so the network imitates the replies it keeps missing;
    /// 0 = value-only, the policy learns only from the network's own searches.
    #[serde(default)]
    pub opponent_policy_fraction: f64,
    /// Weight of the network's material head in the value the self-play searches see
    /// (`NetEvaluator::set_material_mix`; 0 = the WDL head alone). The material head learns
    /// from every position's final material, a denser signal than the game result.
    #[serde(default)]
    pub selfplay_material_mix: f32,
    /// From this training step on, the self-play searches (and the in-loop evaluation's) see
    /// the WDL head alone (`selfplay_material_mix` then counts as 0): the blend teaches a random
    /// network not to give pieces away, and holds back one whose result head has learnt
    /// (BENCHMARKS.md "Self-play without the blend from step 3,004"). 0 = the blend throughout.
    #[serde(default)]
    pub selfplay_material_mix_until_step: u64,
    /// The self-play searches' (and the in-loop evaluation's) royal guard
    /// (`search::mcts::MctsConfig::royal_guard`): moves that let the opponent take the last
    /// royal at once get no prior and no policy target, and positions where every move does
    /// are scored as lost without a network call.
    #[serde(default)]
    pub royal_guard: bool,
    /// With `royal_guard`: the self-play searches (and the in-loop evaluation's) use it for
    /// the networks of this training step on, no guard before. A random network's self-play
    /// without the guard ends most games by taking a royal within ~20 plies, and the networks
    /// that learnt from such games are the ones that hunt royals (BENCHMARKS.md "How the
    /// networks win"). 0 = from the start.
    #[serde(default)]
    pub royal_guard_from_step: u64,
    /// The mate guard (`search::mcts::MctsConfig::mate_guard`, needs `royal_guard`): at the
    /// root of each full self-play search (the policy targets) and of the in-loop evaluation's
    /// searches (`guard=2`), moves that let the opponent mate in one (a reply that attacks the
    /// last royal and leaves no escape) get no prior and no policy target either, while a move
    /// without that flaw exists.
    #[serde(default)]
    pub mate_guard: bool,
    /// With `mate_guard`: the self-play searches (and the in-loop evaluation's) use it for the
    /// networks of this training step on, the royal guard alone before (a random network's
    /// self-play games with the mate guard run ~4 times as long; BENCHMARKS.md "The third
    /// run"). 0 = from the start.
    #[serde(default)]
    pub mate_guard_from_step: u64,
    /// Self-play games (and opponent games) are won by a side ahead by at least this many
    /// centipawns of plain material (`search::values::material_balance`) for
    /// `selfplay_adjudicate_plies` consecutive plies, as the arena's and the in-loop
    /// evaluation's games are; 0 = off (the game runs to its end or `max_plies`).
    #[serde(default)]
    pub selfplay_adjudicate_cp: i32,
    #[serde(default = "default_adjudicate_plies")]
    pub selfplay_adjudicate_plies: u32,
    /// Each pure self-play game (not opponent games: `opponent_random_plies`) opens with a
    /// number of uniformly random plies drawn uniformly from 0 to this, not recorded: the game
    /// starts from the position they reach. The arena measures on such openings; from the start
    /// position alone the network learns the lines of its own sampled openings. 0 = off.
    #[serde(default)]
    pub selfplay_random_plies: u32,
    /// Share of the self-play games (of those that are not opponent games) in which one side,
    /// Black in even-numbered games and White in odd ones, is an older network of the run's own
    /// pool instead of the one now playing (AlphaStar's league, in small): self-play against
    /// itself alone lets the network drift away from play it once beat, and the pool keeps it
    /// meeting that play. Still pure self-play (the run's own networks only). The pool
    /// network's moves are value-only plies (the policy learns from the newest network's
    /// searches alone). 0 = off.
    #[serde(default)]
    pub pool_fraction: f64,
    /// The pool (with `pool_fraction` > 0): the run's checkpoints at multiples of this step
    /// (pruning keeps the newest `pool_size` of them), older than the network now playing; a
    /// worker draws one of them for its pool games whenever a new network is published.
    #[serde(default = "default_pool_every_steps")]
    pub pool_every_steps: u64,
    #[serde(default = "default_pool_size")]
    pub pool_size: usize,

    // --- bootstrap (off unless `bootstrap = "alphabeta"`; absent fields take these defaults) ---
    #[serde(default)]
    pub bootstrap: Bootstrap,
    #[serde(default = "default_bootstrap_engine")]
    pub bootstrap_engine: String,
    #[serde(default)]
    pub bootstrap_positions: u64,
    #[serde(default = "default_bootstrap_random_plies")]
    pub bootstrap_random_plies: u32,
    #[serde(default = "default_bootstrap_ratio")]
    pub bootstrap_train_steps_per_1000_positions: f64,

    // --- replay buffer ---
    pub window_positions: usize,
    pub min_positions: usize,

    // --- training ---
    pub batch_size: usize,
    pub lr: f64,
    pub weight_decay: f32,
    pub value_weight: f32,
    pub moves_left_weight: f32,
    pub material_weight: f32,
    pub material_scale: f32,
    /// Share of the search's root value in the value target (KataGo's z/q mixing):
    /// `(1 − w) · result + w · (root value as W/D/L)`; 0 = the game result alone.
    #[serde(default)]
    pub value_q_weight: f32,
    /// Policy-surprise weighting (KataGo): the share of a policy target's sampling weight that
    /// follows how far its search moved from the network's prior (the KL divergence, relative
    /// to the window's mean), the rest uniform; 0 = uniform sampling. Off when absent.
    #[serde(default)]
    pub policy_surprise_weight: f32,
    /// Plies ahead at which the material head's target is read (0: the game's end). Only
    /// positions loaded from then on use a new value; a resumed run reloads its window.
    #[serde(default)]
    pub material_horizon: u32,
    /// Weight of the capture head's loss (0: untrained; above 0 needs `capture_head = true` in
    /// the network config). Off when absent.
    #[serde(default)]
    pub capture_weight: f32,
    /// Plies ahead within which a piece counts as taken for the capture target.
    #[serde(default = "default_capture_horizon")]
    pub capture_horizon: u32,
    pub train_steps_per_1000_positions: f64,
    pub max_steps: u64,

    // --- checkpoints ---
    pub checkpoint_every_steps: u64,
    pub keep_checkpoints: usize,
    /// The network the workers play (and the in-loop evaluation rates) is the element-wise mean
    /// of the newest this-many checkpoints (snapshot averaging; 1 = the newest alone). Training
    /// goes on from the newest checkpoint's own weights. The means are kept under
    /// `checkpoints/averaged/` with their step's name (BENCHMARKS.md "Snapshot averages").
    #[serde(default = "default_average_checkpoints")]
    pub average_checkpoints: usize,

    // --- evaluation ---
    pub eval_every_checkpoints: u64,
    pub eval_games: u32,
    pub eval_visits: u32,
    pub eval_baseline: String,
    pub eval_max_plies: u32,
    pub eval_adjudicate_cp: i32,
    pub eval_adjudicate_plies: u32,
    /// Milliseconds per move of the equal-time evaluation (0: off).
    #[serde(default)]
    pub eval_movetime_ms: u64,
    /// Uniformly random plies from the start position that open each pair of evaluation games
    /// (2 when absent: [`EVAL_OPENING_PLIES`](crate::run::EVAL_OPENING_PLIES)).
    #[serde(default = "default_eval_opening_plies")]
    pub eval_opening_plies: u32,
    /// Balanced evaluation openings: the random plies are drawn again until alpha-beta at
    /// depth 3 scores the position within this many centipawns, as `tenjiku arena --balanced`
    /// does (0 = off: any opening).
    #[serde(default)]
    pub eval_balanced_cp: i32,

    // --- reporting ---
    pub report_every_steps: u64,

    /// The network config named by `network` (filled in by [`RunConfig::load`]; written into a
    /// run's `config.toml`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net: Option<NetConfig>,
}

/// Ranges of a run config's counts (also written in `configs/cpu.toml`).
pub const MAX_THREADS: u64 = 1024;
pub const MAX_CONCURRENT_GAMES: u64 = 4096;
pub const MAX_VISITS: u64 = 1_000_000;
pub const MAX_PLIES: u64 = 100_000;
/// Largest material adjudication margin in centipawns (as the arena's `--adjudicate-material`).
pub const MAX_ADJUDICATE_CP: i32 = 1_000_000;
pub const MAX_WINDOW_POSITIONS: u64 = 100_000_000;
pub const MAX_BATCH_SIZE: u64 = 8192;

/// Rough bytes one position of the replay window holds (the decoded sample, ~0.5 KB, and its
/// policy target of up to a few hundred moves, 8 bytes each).
const WINDOW_BYTES_PER_POSITION: u64 = 3 << 10;
/// Rough bytes one tree of a self-play game holds per visit (a node and its ~85–240 edges).
const TREE_BYTES_PER_VISIT: u64 = 4 << 10;

impl RunConfig {
    /// A rough upper estimate of the memory a run needs, by part: the network with its
    /// gradients and optimiser moments, one training batch (inputs, full policy logits and
    /// their gradients, the tower's activations), the replay window, and the self-play trees and
    /// their evaluation batch. Compared with the memory the machine has before the run starts.
    pub fn memory_estimate(&self) -> Vec<(&'static str, u64)> {
        let net = self.net();
        let squares = 256u64;
        let per_batch_position = (nn::encoding::INPUT_SIZE as u64 + 3 * nn::policy::POLICY_SIZE as u64) * 4
            + net.blocks as u64 * net.channels as u64 * squares * 4 * 8;
        let games = self.concurrent_games as u64;
        vec![
            ("the network and its optimiser state", net.parameter_count() * 4 * 5),
            ("a training batch (batch_size)", self.batch_size as u64 * per_batch_position),
            ("the replay window (window_positions)", self.window_positions as u64 * WINDOW_BYTES_PER_POSITION),
            (
                "the self-play trees (concurrent_games x visits)",
                games * (self.visits as u64 + 1) * TREE_BYTES_PER_VISIT + games * nn::encoding::INPUT_SIZE as u64 * 4,
            ),
        ]
    }
}

/// Fields that may change between the start of a run and a resume (how and how long it runs,
/// and how it is measured, not what it learns); [`RunConfig::first_difference`] ignores them.
pub const RUNTIME_FIELDS: [&str; 16] = [
    "network",
    "backend",
    "precision",
    "max_steps",
    "threads",
    "overlap_selfplay",
    "eval_every_checkpoints",
    "eval_games",
    "eval_visits",
    "eval_baseline",
    "eval_max_plies",
    "eval_adjudicate_cp",
    "eval_adjudicate_plies",
    "eval_movetime_ms",
    "eval_opening_plies",
    "eval_balanced_cp",
];

/// Beyond a few dozen random plies an opening is no longer an opening but a lost position for
/// one side: the games would teach nothing.
pub const MAX_OPPONENT_RANDOM_PLIES: u32 = 40;

/// Fields of the learning schedule that a resumed run may change (`tenjiku train --set`), for
/// the usual later phases of a long run: a lower learning rate, fewer sampled opening plies,
/// games against an opponent that punishes what self-play lets pass. They change what is
/// learnt from then on, so the change is written into the run's `config.toml` and logged with
/// its step in `train.log`. Fields the replay schedule or the game format depend on (ratios,
/// network, rules) stay fixed. The window may grow or shrink: a resumed run reloads its newest
/// `window_positions` positions from the games on disk.
pub const SCHEDULE_FIELDS: [&str; 24] = [
    "lr",
    "window_positions",
    "temperature_plies",
    "opponent_fraction",
    "opponent_engine",
    "opponent_random_plies",
    "opponent_policy_fraction",
    "selfplay_material_mix",
    "selfplay_material_mix_until_step",
    "value_q_weight",
    "policy_surprise_weight",
    "material_horizon",
    "capture_horizon",
    "royal_guard",
    "royal_guard_from_step",
    "mate_guard",
    "mate_guard_from_step",
    "selfplay_adjudicate_cp",
    "selfplay_adjudicate_plies",
    "selfplay_random_plies",
    "average_checkpoints",
    "pool_fraction",
    "pool_every_steps",
    "pool_size",
];

impl RunConfig {
    /// Parse TOML text (`origin` names it in errors) and validate it. `net` is left as written.
    pub fn from_toml(text: &str, origin: &str) -> Result<RunConfig, ConfigError> {
        let cfg: RunConfig = toml::from_str(text).map_err(|e| ConfigError::Toml {
            origin: origin.to_string(),
            line: e.span().map(|s| text[..s.start.min(text.len())].lines().count().max(1)),
            msg: e.message().trim().replace('\n', " "),
        })?;
        cfg.validate().map_err(|error| ConfigError::Field { origin: origin.to_string(), error })?;
        Ok(cfg)
    }

    /// Read a run config file and the network config it names (resolved against the file's
    /// directory, then the working directory). A `[net]` table already present (a run
    /// directory's `config.toml`) is used as it is.
    pub fn load(path: &Path) -> Result<RunConfig, ConfigError> {
        Self::load_with_sets(path, &[])
    }

    /// [`RunConfig::load`] with `FIELD=VALUE` assignments (`tenjiku train --set`) applied before
    /// the network config is resolved, so `--set network=net-large.toml` on a new run builds
    /// that network (resolved like the file's own `network`).
    pub fn load_with_sets(path: &Path, sets: &[String]) -> Result<RunConfig, ConfigError> {
        let origin = path.display().to_string();
        let text = engine::input::read_text(path, engine::input::MAX_CONFIG_BYTES)
            .map_err(|e| ConfigError::Read { path: origin.clone(), reason: e.to_string() })?;
        let mut cfg = RunConfig::from_toml(&text, &origin)?;
        for s in sets {
            cfg.set_field(s)?;
        }
        if cfg.net.is_none() {
            let net_path = resolve(path, &cfg.network).ok_or_else(|| ConfigError::Network {
                origin: origin.clone(),
                why: format!("cannot find network config '{}'", cfg.network),
            })?;
            let net = NetConfig::load(&net_path)
                .map_err(|e| ConfigError::Network { origin: origin.clone(), why: e.to_string() })?;
            cfg.net = Some(net);
            // Checks that need the network (a material mix needs its material head).
            cfg.validate().map_err(|error| ConfigError::Field { origin: origin.clone(), error })?;
        } else if let Some(n) = &cfg.net {
            n.validate().map_err(|error| ConfigError::NetTable { origin: origin.clone(), error })?;
        }
        Ok(cfg)
    }

    /// A run's own config as a store keeps it (`config.toml`, with its `[net]` table).
    pub fn from_stored(text: &str, origin: &str) -> Result<RunConfig, ConfigError> {
        let cfg = RunConfig::from_toml(text, origin)?;
        match &cfg.net {
            None => Err(ConfigError::Network {
                origin: origin.to_string(),
                why: "a run's config.toml must have its [net] table".into(),
            }),
            Some(n) => {
                n.validate().map_err(|error| ConfigError::NetTable { origin: origin.to_string(), error })?;
                Ok(cfg)
            }
        }
    }

    /// The weight of the material head in the value the self-play searches (and the in-loop
    /// evaluation's) see for a network of training step `step`: `selfplay_material_mix`, or 0
    /// from `selfplay_material_mix_until_step` on (when that is not 0).
    pub fn selfplay_material_mix_at(&self, step: u64) -> f32 {
        match self.selfplay_material_mix_until_step {
            until if until > 0 && step >= until => 0.0,
            _ => self.selfplay_material_mix,
        }
    }

    /// Whether the self-play searches (and the in-loop evaluation's) of a network of training
    /// step `step` use the mate guard: `mate_guard`, from `mate_guard_from_step` on, and only
    /// where the royal guard is on ([`RunConfig::royal_guard_at`]).
    pub fn mate_guard_at(&self, step: u64) -> bool {
        self.mate_guard && step >= self.mate_guard_from_step && self.royal_guard_at(step)
    }

    /// Whether the self-play searches (and the in-loop evaluation's) of a network of training
    /// step `step` use the royal guard: `royal_guard`, from `royal_guard_from_step` on.
    pub fn royal_guard_at(&self, step: u64) -> bool {
        self.royal_guard && step >= self.royal_guard_from_step
    }

    /// The network config (present after [`RunConfig::load`]).
    pub fn net(&self) -> &NetConfig {
        self.net.as_ref().expect("network config loaded")
    }

    /// The config as TOML (with the `[net]` table), the form a run directory keeps.
    pub fn to_toml(&self) -> String {
        let body = toml::to_string(self).expect("a run config serialises");
        format!(
            "# The config of this run (`tenjiku train`); the [net] table is a copy of the network\n\
             # config. Resuming with a different config is refused, except for the fields\n\
             # {} (how and how long it runs)\n\
             # and {} (the learning schedule: changed with --set, logged in train.log).\n{body}",
            RUNTIME_FIELDS.join(", "),
            SCHEDULE_FIELDS.join(", ")
        )
    }

    // One check per field, in the order of the config file (about 110 lines of a flat list).
    /// Check every value. The error names the field.
    pub fn validate(&self) -> Result<(), FieldError> {
        let bad = |field: &'static str, why: &str| Err(FieldError { field, why: why.to_string() });
        let fraction = |x: f64| (0.0..=1.0).contains(&x);
        // Counts and sizes: each in its documented range (configs/cpu.toml).
        let counts: [(&'static str, u64, u64, u64); 20] = [
            ("threads", self.threads as u64, 1, MAX_THREADS),
            ("material_horizon", self.material_horizon as u64, 0, MAX_PLIES),
            ("capture_horizon", self.capture_horizon as u64, 1, MAX_PLIES),
            ("concurrent_games", self.concurrent_games as u64, 1, MAX_CONCURRENT_GAMES),
            ("visits", self.visits as u64, 1, MAX_VISITS),
            ("gumbel_considered", self.gumbel_considered as u64, 2, 256),
            ("temperature_plies", self.temperature_plies as u64, 0, MAX_PLIES),
            ("resign_plies", self.resign_plies as u64, 0, MAX_PLIES),
            ("max_plies", self.max_plies as u64, 0, MAX_PLIES),
            ("bootstrap_random_plies", self.bootstrap_random_plies as u64, 0, MAX_PLIES),
            ("window_positions", self.window_positions as u64, 1, MAX_WINDOW_POSITIONS),
            ("batch_size", self.batch_size as u64, 1, MAX_BATCH_SIZE),
            ("checkpoint_every_steps", self.checkpoint_every_steps, 1, u64::MAX),
            ("keep_checkpoints", self.keep_checkpoints as u64, 1, 1_000_000),
            ("eval_games", self.eval_games as u64, 0, 100_000),
            ("eval_visits", self.eval_visits as u64, 1, MAX_VISITS),
            ("eval_max_plies", self.eval_max_plies as u64, 0, MAX_PLIES),
            ("eval_movetime_ms", self.eval_movetime_ms, 0, 86_400_000),
            ("eval_opening_plies", self.eval_opening_plies as u64, 0, MAX_OPPONENT_RANDOM_PLIES as u64),
            ("report_every_steps", self.report_every_steps, 1, u64::MAX),
        ];
        for (field, value, lo, hi) in counts {
            if !(lo..=hi).contains(&value) {
                let range = if hi == u64::MAX { format!("at least {lo}") } else { format!("{lo} to {hi}") };
                return bad(field, &format!("is {value}, expected {range}"));
            }
        }
        if self.average_checkpoints == 0 || self.average_checkpoints > self.keep_checkpoints {
            return bad(
                "average_checkpoints",
                &format!(
                    "is {}, expected 1 to `keep_checkpoints` ({})",
                    self.average_checkpoints, self.keep_checkpoints
                ),
            );
        }
        if !fraction(self.pool_fraction) {
            return bad("pool_fraction", "must be in [0, 1]");
        }
        if self.pool_every_steps == 0
            || (self.pool_fraction > 0.0 && !self.pool_every_steps.is_multiple_of(self.checkpoint_every_steps))
        {
            return bad(
                "pool_every_steps",
                &format!(
                    "is {}, expected a multiple of `checkpoint_every_steps` ({}) for the pool games",
                    self.pool_every_steps, self.checkpoint_every_steps
                ),
            );
        }
        if !(1..=1000).contains(&self.pool_size) {
            return bad("pool_size", &format!("is {}, expected 1 to 1000", self.pool_size));
        }
        if self.cheap_visits == 0 || self.cheap_visits > self.visits {
            return bad("cheap_visits", "must be between 1 and `visits`");
        }
        if !fraction(self.full_search_fraction) || self.full_search_fraction == 0.0 {
            return bad("full_search_fraction", "must be in (0, 1]");
        }
        if !(-1.0..=1.0).contains(&self.resign_threshold) {
            return bad("resign_threshold", "must be in [-1, 1] (-1 turns resignation off)");
        }
        if !fraction(self.resign_playout_fraction) {
            return bad("resign_playout_fraction", "must be in [0, 1]");
        }
        if !fraction(self.opponent_fraction) {
            return bad("opponent_fraction", "must be in [0, 1]");
        }
        if self.opponent_fraction > 0.0 {
            if let Err(e) = crate::games::check_engine(&self.opponent_engine) {
                return bad("opponent_engine", &e.to_string());
            }
        }
        if !fraction(self.opponent_policy_fraction) {
            return bad("opponent_policy_fraction", "must be in [0, 1]");
        }
        for (name, plies) in [
            ("opponent_random_plies", self.opponent_random_plies),
            ("selfplay_random_plies", self.selfplay_random_plies),
        ] {
            if plies > MAX_OPPONENT_RANDOM_PLIES {
                return bad(name, &format!("is {plies}, expected 0 to {MAX_OPPONENT_RANDOM_PLIES}"));
            }
        }
        if let Err(e) = self.precision.parse::<nn::backend::Precision>() {
            return bad("precision", &e.to_string());
        }
        for (name, w) in [
            ("selfplay_material_mix", self.selfplay_material_mix),
            ("value_q_weight", self.value_q_weight),
            ("policy_surprise_weight", self.policy_surprise_weight),
        ] {
            if !(0.0..=1.0).contains(&w) {
                return bad(name, "must be in [0, 1]");
            }
        }
        if self.selfplay_material_mix > 0.0 && self.net.as_ref().is_some_and(|n| !n.material_head) {
            return bad("selfplay_material_mix", "needs a network with a material head (`material_head = true`)");
        }
        if self.capture_weight > 0.0 && self.net.as_ref().is_some_and(|n| !n.capture_head) {
            return bad("capture_weight", "needs a network with a capture head (`capture_head = true`)");
        }
        if self.min_positions == 0 || self.min_positions > self.window_positions {
            return bad("min_positions", "must be between 1 and `window_positions`");
        }
        if !(self.lr > 0.0 && self.lr <= 10.0) {
            return bad("lr", "must be a number above 0 and at most 10");
        }
        for (name, v) in [
            ("weight_decay", self.weight_decay),
            ("value_weight", self.value_weight),
            ("moves_left_weight", self.moves_left_weight),
            ("material_weight", self.material_weight),
            ("capture_weight", self.capture_weight),
        ] {
            if !(0.0..=1000.0).contains(&v) {
                return bad(name, "must be a number from 0 to 1000");
            }
        }
        if !(self.material_scale > 0.0 && self.material_scale <= 1e6) {
            return bad("material_scale", "must be a number above 0 and at most 1000000");
        }
        if !(self.train_steps_per_1000_positions > 0.0 && self.train_steps_per_1000_positions <= 1e6) {
            return bad("train_steps_per_1000_positions", "must be a number above 0 and at most 1000000");
        }
        if self.eval_every_checkpoints > 0 && self.eval_games == 0 {
            return bad("eval_games", "must be at least 1 when evaluation is on (`eval_every_checkpoints` > 0)");
        }

        for (cp_field, cp, plies_field, plies) in [
            ("eval_adjudicate_cp", self.eval_adjudicate_cp, "eval_adjudicate_plies", self.eval_adjudicate_plies),
            (
                "selfplay_adjudicate_cp",
                self.selfplay_adjudicate_cp,
                "selfplay_adjudicate_plies",
                self.selfplay_adjudicate_plies,
            ),
        ] {
            if !(0..=MAX_ADJUDICATE_CP).contains(&cp) {
                return bad(
                    cp_field,
                    &format!("is {cp}, expected 0 (material adjudication off) to {MAX_ADJUDICATE_CP}"),
                );
            }
            if cp > 0 && !(1..=MAX_PLIES as u32).contains(&plies) {
                return bad(plies_field, &format!("is {plies}, expected 1 to {MAX_PLIES} when `{cp_field}` > 0"));
            }
        }
        if self.mate_guard && !self.royal_guard {
            return bad("mate_guard", "needs `royal_guard = true` (the mate guard extends the royal guard's screen)");
        }
        if !(0..=MAX_ADJUDICATE_CP).contains(&self.eval_balanced_cp) {
            let cp = self.eval_balanced_cp;
            return bad("eval_balanced_cp", &format!("is {cp}, expected 0 (any opening) to {MAX_ADJUDICATE_CP}"));
        }
        if self.bootstrap != Bootstrap::None {
            if let Err(e) = crate::games::check_engine(&self.bootstrap_engine) {
                return bad("bootstrap_engine", &e.to_string());
            }
            if self.bootstrap_positions == 0 {
                return bad("bootstrap_positions", "must be at least 1 when `bootstrap` is on");
            }
        }
        if !(self.bootstrap_train_steps_per_1000_positions > 0.0
            && self.bootstrap_train_steps_per_1000_positions <= 1e6)
        {
            return bad("bootstrap_train_steps_per_1000_positions", "must be a number above 0 and at most 1000000");
        }
        let rules = match engine::Rules::load(&self.rules) {
            Ok(r) => r,
            Err(e) => return bad("rules", &e.to_string()),
        };
        // The baseline is built here (a network spec loads its checkpoint), so a bad one is
        // refused now, not warned about at every evaluation.
        if let Err(e) = play::check(&self.eval_baseline, &rules) {
            return bad("eval_baseline", &e.to_string());
        }
        Ok(())
    }

    /// Apply one `FIELD=VALUE` assignment (`tenjiku train --set`; VALUE in TOML syntax, a bare
    /// word taken as a string), then validate. The error names the field and what was expected.
    pub fn set_field(&mut self, assignment: &str) -> Result<(), ConfigError> {
        let (field, raw) = assignment
            .split_once('=')
            .map(|(f, v)| (f.trim(), v.trim()))
            .filter(|(f, v)| !f.is_empty() && !v.is_empty())
            .ok_or_else(|| ConfigError::SetSyntax { assignment: assignment.to_string() })?;
        let parsed: toml::Value = toml::from_str::<toml::Table>(&format!("v = {raw}"))
            .ok()
            .and_then(|mut t| t.remove("v"))
            .unwrap_or_else(|| toml::Value::String(raw.to_string()));
        let mut value = toml::Value::try_from(&*self).expect("a run config serialises");
        let table = value.as_table_mut().expect("a run config is a table");
        if field == "net" || !table.contains_key(field) {
            return Err(ConfigError::SetUnknownField { field: field.to_string() });
        }
        if field == "network" && self.net.is_some() {
            return Err(ConfigError::SetValue {
                field: field.to_string(),
                value: raw.to_string(),
                why: "a run's network is fixed by its checkpoints (expected --set network=... only when a new run \
                      starts from --config)"
                    .into(),
            });
        }
        table.insert(field.to_string(), parsed);
        let set_error = |why: String| ConfigError::SetValue { field: field.to_string(), value: raw.to_string(), why };
        let cfg: RunConfig =
            value.try_into().map_err(|e: toml::de::Error| set_error(e.message().trim().replace('\n', " ")))?;
        cfg.validate().map_err(|e| set_error(e.to_string()))?;
        *self = cfg;
        Ok(())
    }

    /// How far ahead the loaded games' targets look: the material horizon, and the capture
    /// horizon when the capture loss is on (0 otherwise: no capture targets to compute).
    pub fn horizons(&self) -> crate::replay::Horizons {
        let capture = if self.capture_weight > 0.0 { self.capture_horizon } else { 0 };
        crate::replay::Horizons { material: self.material_horizon, capture }
    }

    /// This config with the [`SCHEDULE_FIELDS`] of `other` (what a run directory records
    /// after a schedule change: its own runtime fields stay).
    pub fn with_schedule_of(&self, other: &RunConfig) -> RunConfig {
        let mut a = serde_json::to_value(self).expect("serialises");
        let b = serde_json::to_value(other).expect("serialises");
        for f in SCHEDULE_FIELDS {
            a[f] = b[f].clone();
        }
        serde_json::from_value(a).expect("a run config with another run config's schedule")
    }

    /// The [`SCHEDULE_FIELDS`] whose values differ between `self` (the run's) and `other`, each
    /// with both values.
    pub fn schedule_changes(&self, other: &RunConfig) -> Vec<(String, String, String)> {
        let a = serde_json::to_value(self).expect("serialises");
        let b = serde_json::to_value(other).expect("serialises");
        SCHEDULE_FIELDS
            .iter()
            .filter(|f| a.get(**f) != b.get(**f))
            .map(|f| (f.to_string(), a[*f].to_string(), b[*f].to_string()))
            .collect()
    }

    /// The first field (in file order; `net.FIELD` for the network) whose value differs from
    /// `other`'s, ignoring [`RUNTIME_FIELDS`] and [`SCHEDULE_FIELDS`], with both values.
    pub fn first_difference(&self, other: &RunConfig) -> Option<(String, String, String)> {
        let a = serde_json::to_value(self).expect("serialises");
        let b = serde_json::to_value(other).expect("serialises");
        let (a, b) = (a.as_object()?, b.as_object()?);
        let keys = a.keys().chain(b.keys().filter(|k| !a.contains_key(*k)));
        for k in keys {
            if RUNTIME_FIELDS.contains(&k.as_str()) || SCHEDULE_FIELDS.contains(&k.as_str()) {
                continue;
            }
            let (x, y) = (a.get(k), b.get(k));
            if x == y {
                continue;
            }
            if let (Some(serde_json::Value::Object(xo)), Some(serde_json::Value::Object(yo))) = (x, y) {
                for (kk, xv) in xo {
                    if yo.get(kk) != Some(xv) {
                        let yv = yo.get(kk).map(|v| v.to_string()).unwrap_or_else(|| "(none)".into());
                        return Some((format!("{k}.{kk}"), xv.to_string(), yv));
                    }
                }
                if let Some((kk, yv)) = yo.iter().find(|(kk, _)| !xo.contains_key(*kk)) {
                    return Some((format!("{k}.{kk}"), "(none)".into(), yv.to_string()));
                }
            }
            let show = |v: Option<&serde_json::Value>| v.map(|v| v.to_string()).unwrap_or_else(|| "(none)".into());
            return Some((k.clone(), show(x), show(y)));
        }
        None
    }
}

/// `name` relative to the directory of `config`, else to the working directory.
pub fn resolve(config: &Path, name: &str) -> Option<PathBuf> {
    let p = Path::new(name);
    if p.is_absolute() {
        return p.exists().then(|| p.to_path_buf());
    }
    if let Some(dir) = config.parent() {
        let q = dir.join(p);
        if q.exists() {
            return Some(q);
        }
    }
    p.exists().then(|| p.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    const TINY: &str = include_str!("../../configs/tiny.toml");

    /// Every shipped run config loads with its network and validates; gpu.toml's network is the
    /// wgpu-sized one measured on the H200 (BENCHMARKS.md), not the 15×192 net-large.
    #[test]
    fn shipped_run_configs_load_with_their_networks() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs");
        for (name, blocks, channels) in [("tiny.toml", 1, 8), ("cpu.toml", 3, 64), ("gpu.toml", 6, 96)] {
            let c = RunConfig::load(&dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
            c.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!((c.net().blocks, c.net().channels), (blocks, channels), "{name}");
        }
    }

    /// `--set network=...` on a new run builds the network it names (resolved as the file's own
    /// `network` is); once a run has its network, changing it is refused in one line.
    #[test]
    fn a_new_run_can_set_its_network_and_a_started_one_cannot() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs");
        let sets = ["network=net-cpu-gpool.toml".to_string()];
        let c = RunConfig::load_with_sets(&dir.join("cpu-scratch.toml"), &sets).unwrap();
        assert_eq!(c.network, "net-cpu-gpool.toml");
        assert!(c.net().global_pool, "the named network, not the file's own");
        let plain = RunConfig::load(&dir.join("cpu-scratch.toml")).unwrap();
        assert!(!plain.net().global_pool);
        let mut started = plain.clone();
        let e = started.set_field("network=net-large.toml").unwrap_err().to_string();
        assert!(e.contains("--set network=net-large.toml") && e.contains("fixed by its checkpoints"), "{e}");
        assert!(!e.contains('\n'));
        assert_eq!(started, plain);
        let e = RunConfig::load_with_sets(&dir.join("cpu-scratch.toml"), &["network=nothing-here.toml".to_string()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot find network config 'nothing-here.toml'"), "{e}");
    }

    #[test]
    fn tiny_parses_and_errors_name_the_field() {
        let c = RunConfig::from_toml(TINY, "tiny.toml").unwrap();
        assert_eq!(c.first_difference(&c), None);
        let e = RunConfig::from_toml(&format!("{TINY}\nbogus = 1\n"), "x.toml").unwrap_err().to_string();
        assert!(e.contains("bogus") && !e.contains('\n'), "{e}");
        let e =
            RunConfig::from_toml(&TINY.replace("batch_size = ", "batch_size = 0 #"), "x.toml").unwrap_err().to_string();
        assert!(e.contains("`batch_size`"), "{e}");
        let e = RunConfig::from_toml(&TINY.replace("bootstrap = \"none\"", "bootstrap = \"abc\""), "x.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("abc") && e.contains("alphabeta"), "{e}");
        let e = RunConfig::from_toml(
            &TINY
                .replace("bootstrap = \"none\"", "bootstrap = \"alphabeta\"")
                .replace("bootstrap_engine = \"alphabeta:depth=1\"", "bootstrap_engine = \"alphabeta:time=1s\""),
            "x.toml",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("`bootstrap_engine`"), "{e}");
        let mut d = c.clone();
        d.eval_movetime_ms += 100;
        assert_eq!(c.first_difference(&d), None, "evaluation settings may change on resume");
        d.bootstrap = Bootstrap::Alphabeta;
        assert_eq!(c.first_difference(&d).unwrap().0, "bootstrap");
        let mut d = c.clone();
        d.visits += 1;
        d.max_steps += 1;
        assert_eq!(c.first_difference(&d).unwrap().0, "visits");
    }

    /// Every count has a range; a value outside it (absurd sizes included, which would abort on
    /// allocation) is a one-line error naming the field, the value and the range. Fields the
    /// file calls required are required; an engine spec that does not build is refused.
    #[test]
    fn run_config_values_outside_their_ranges_are_refused() {
        for (field, value, want) in [
            ("concurrent_games", "1000000000", "field `concurrent_games` is 1000000000, expected 1 to 4096"),
            ("batch_size", "1000000000", "field `batch_size` is 1000000000, expected 1 to 8192"),
            ("window_positions", "1000000000000", "field `window_positions` is 1000000000000, expected 1 to 100000000"),
            ("threads", "0", "field `threads` is 0, expected 1 to 1024"),
            ("visits", "0", "field `visits` is 0, expected 1 to 1000000"),
            ("gumbel_considered", "1", "field `gumbel_considered` is 1, expected 2 to 256"),
            ("lr", "nan", "field `lr` must be a number above 0 and at most 10"),
            ("lr", "inf", "field `lr` must be a number above 0 and at most 10"),
            ("eval_baseline", "\"nosuch\"", "field `eval_baseline` bad engine spec 'nosuch': unknown engine 'nosuch'"),
            ("eval_baseline", "\"alphabeta:depth=0\"", "'depth=0' is out of range (expected 1 to 48)"),
            ("eval_movetime_ms", "100000000000", "field `eval_movetime_ms` is 100000000000, expected 0 to 86400000"),
            ("eval_opening_plies", "41", "field `eval_opening_plies` is 41, expected 0 to 40"),
            ("eval_balanced_cp", "2000000", "field `eval_balanced_cp` is 2000000, expected 0 (any opening) to 1000000"),
            ("eval_balanced_cp", "-1", "field `eval_balanced_cp` is -1, expected 0 (any opening) to 1000000"),
        ] {
            let line = TINY.lines().find(|l| l.starts_with(&format!("{field} = "))).unwrap();
            let e = RunConfig::from_toml(&TINY.replace(line, &format!("{field} = {value}")), "x.toml")
                .unwrap_err()
                .to_string();
            assert!(e.contains(want) && !e.contains('\n'), "{field}: {e}");
        }
        for field in ["rules", "backend", "eval_baseline"] {
            let line = TINY.lines().find(|l| l.starts_with(&format!("{field} = "))).unwrap();
            let e = RunConfig::from_toml(&TINY.replace(line, ""), "x.toml").unwrap_err().to_string();
            assert!(e.contains(&format!("missing field `{field}`")), "{e}");
        }
    }

    /// The memory estimate grows with the sizes that can exhaust memory.
    #[test]
    fn the_memory_estimate_counts_the_window_the_batch_and_the_games() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/tiny.toml");
        let c = RunConfig::load(std::path::Path::new(dir)).unwrap();
        let total = |c: &RunConfig| c.memory_estimate().iter().map(|p| p.1).sum::<u64>();
        let base = total(&c);
        assert!(base < 1 << 30, "the tiny run needs little: {base}");
        for change in [
            |c: &mut RunConfig| c.window_positions = 100_000_000,
            |c: &mut RunConfig| c.batch_size = 8192,
            |c: &mut RunConfig| c.concurrent_games = 4096,
        ] {
            let mut d = c.clone();
            change(&mut d);
            assert!(total(&d) > base * 10, "{:?}", d.memory_estimate());
        }
        let mut d = c.clone();
        d.window_positions = 100_000_000;
        assert!(total(&d) > 200 << 30, "100 M positions need hundreds of GiB: {}", total(&d));
    }

    /// A shipped config of `configs/`, loaded with its network.
    fn shipped(name: &str) -> RunConfig {
        RunConfig::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs").join(name)).unwrap()
    }

    /// `loaded` with `assignment` applied, checked to be a schedule change (a resumed run may
    /// make it) and the only one.
    fn one_schedule_change(loaded: &RunConfig, assignment: &str) -> RunConfig {
        let mut m = loaded.clone();
        m.set_field(assignment).unwrap();
        assert_eq!(loaded.first_difference(&m), None, "{assignment}");
        assert_eq!(loaded.schedule_changes(&m).len(), 1, "{assignment}");
        m
    }

    /// The material horizon: 0 when absent, a schedule field, range-checked.
    #[test]
    fn material_horizon_is_a_checked_schedule_field() {
        let loaded = shipped("tiny.toml");
        assert_eq!(loaded.material_horizon, 0);
        let m = one_schedule_change(&loaded, "material_horizon=8");
        assert_eq!(m.material_horizon, 8);
        let e = m.clone().set_field("material_horizon=100001").unwrap_err().to_string();
        assert!(e.contains("material_horizon") && e.contains("0 to 100000"), "{e}");
        let scratch = shipped("cpu-scratch.toml");
        assert_eq!(scratch.material_horizon, 0);
    }

    /// Policy-surprise weighting: off when absent (and in the shipped scratch recipe), a
    /// schedule field a resumed run may turn on, its share checked to lie in [0, 1].
    #[test]
    fn policy_surprise_weight_is_a_checked_schedule_field() {
        let loaded = shipped("tiny.toml");
        assert_eq!(loaded.policy_surprise_weight, 0.0);
        let m = one_schedule_change(&loaded, "policy_surprise_weight=0.5");
        assert_eq!(m.policy_surprise_weight, 0.5);
        for bad in ["policy_surprise_weight=1.5", "policy_surprise_weight=-0.1", "policy_surprise_weight=nan"] {
            let e = loaded.clone().set_field(bad).unwrap_err().to_string();
            assert!(e.contains("policy_surprise_weight") && e.contains("[0, 1]"), "{bad}: {e}");
        }
        let scratch = shipped("cpu-scratch.toml");
        assert_eq!(scratch.policy_surprise_weight, 0.0);
    }

    /// The capture fields: off when absent, the horizon a checked schedule field, the weight a
    /// checked loss weight that needs the head.
    #[test]
    fn capture_fields_are_checked_and_the_weight_needs_the_head() {
        let loaded = shipped("tiny.toml");
        assert_eq!((loaded.capture_weight, loaded.capture_horizon), (0.0, 4));
        assert_eq!(loaded.horizons(), crate::replay::Horizons { material: 0, capture: 0 });
        let mut m = loaded.clone();
        m.set_field("capture_horizon=6").unwrap();
        assert_eq!(loaded.schedule_changes(&m).len(), 1);
        for bad in ["capture_horizon=0", "capture_horizon=100001"] {
            let e = loaded.clone().set_field(bad).unwrap_err().to_string();
            assert!(e.contains("capture_horizon") && e.contains("1 to 100000"), "{e}");
        }
        let e = loaded.clone().set_field("capture_weight=1").unwrap_err().to_string();
        assert!(e.contains("capture_weight") && e.contains("capture_head = true"), "{e}");
        let mut h = loaded.clone();
        h.net.as_mut().unwrap().capture_head = true;
        h.set_field("capture_weight=1.5").unwrap();
        h.set_field("capture_horizon=6").unwrap();
        assert_eq!(h.horizons(), crate::replay::Horizons { material: 0, capture: 6 });
        let e = h.clone().set_field("capture_weight=-1").unwrap_err().to_string();
        assert!(e.contains("capture_weight") && e.contains("0 to 1000"), "{e}");
    }

    /// Opponent games: both fields are checked, and both belong to the learning schedule (a
    /// resumed run may change them with `--set`).
    #[test]
    fn opponent_fields_are_checked_and_belong_to_the_schedule() {
        let c = RunConfig::from_toml(TINY, "tiny.toml").unwrap();
        assert_eq!(c.opponent_fraction, 0.0, "tiny.toml plays pure self-play");
        let e = RunConfig::from_toml(&TINY.replace("opponent_fraction = 0.0", "opponent_fraction = 1.5"), "x.toml")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`opponent_fraction`") && e.contains("[0, 1]"), "{e}");
        let on = TINY.replace("opponent_fraction = 0.0", "opponent_fraction = 0.5");
        for (engine, why) in [("alphabeta:time=1s", "time="), ("random", "alphabeta"), ("alphabeta", "depth=")] {
            let text =
                on.replace("opponent_engine = \"alphabeta:depth=2,tt=8\"", &format!("opponent_engine = \"{engine}\""));
            let e = RunConfig::from_toml(&text, "x.toml").unwrap_err().to_string();
            assert!(e.contains("`opponent_engine`") && e.contains(why), "{engine}: {e}");
        }
        let mut d = c.clone();
        d.set_field("opponent_fraction=0.25").unwrap();
        d.set_field("opponent_engine=\"alphabeta:depth=1\"").unwrap();
        d.set_field("opponent_random_plies=6").unwrap();
        d.set_field("opponent_policy_fraction=0.5").unwrap();
        assert_eq!(c.first_difference(&d), None, "schedule fields may change on resume");
        let changed: Vec<String> = c.schedule_changes(&d).into_iter().map(|(f, _, _)| f).collect();
        assert_eq!(
            changed,
            ["opponent_fraction", "opponent_engine", "opponent_random_plies", "opponent_policy_fraction"]
        );
        // The z/q value mix and the self-play material mix are schedule fields in [0, 1]; the
        // material mix needs a material head.
        let loaded = shipped("tiny.toml");
        let mut m = loaded.clone();
        m.set_field("value_q_weight=0.5").unwrap();
        m.set_field("selfplay_material_mix=0.25").unwrap();
        assert!(!m.royal_guard, "the royal guard is off when the field is absent");
        m.set_field("royal_guard=true").unwrap();
        assert!(m.royal_guard);
        assert_eq!(loaded.first_difference(&m), None);
        assert_eq!(loaded.schedule_changes(&m).len(), 3);
        let e = m.clone().set_field("royal_guard=2").unwrap_err().to_string();
        assert!(e.contains("royal_guard"), "{e}");
        // The mate guard: off when absent, a schedule field, only with the royal guard.
        assert!(!m.mate_guard);
        let mut g = m.clone();
        g.set_field("mate_guard=true").unwrap();
        assert!(g.mate_guard && loaded.first_difference(&g).is_none());
        let e = loaded.clone().set_field("mate_guard=true").unwrap_err().to_string();
        assert!(e.contains("`mate_guard` needs `royal_guard = true`"), "{e}");
        // Self-play material adjudication: off when absent (16 plies once on), a schedule field.
        assert_eq!((m.selfplay_adjudicate_cp, m.selfplay_adjudicate_plies), (0, 16));
        let mut a = m.clone();
        a.set_field("selfplay_adjudicate_cp=2500").unwrap();
        a.set_field("selfplay_adjudicate_plies=8").unwrap();
        assert_eq!(m.first_difference(&a), None);
        assert_eq!(m.schedule_changes(&a).len(), 2);
        for (bad, says) in [
            ("selfplay_adjudicate_cp=-1", "expected 0 (material adjudication off) to 1000000"),
            ("selfplay_adjudicate_cp=1000001", "expected 0 (material adjudication off) to 1000000"),
            ("selfplay_adjudicate_plies=0", "expected 1 to 100000 when `selfplay_adjudicate_cp` > 0"),
        ] {
            let e = a.clone().set_field(bad).unwrap_err().to_string();
            assert!(e.contains(bad.split('=').next().unwrap()) && e.contains(says), "{e}");
        }
        for bad in ["value_q_weight=1.5", "selfplay_material_mix=-0.1"] {
            let e = m.clone().set_field(bad).unwrap_err().to_string();
            assert!(e.contains(bad.split('=').next().unwrap()) && e.contains("[0, 1]"), "{e}");
        }
        m.net.as_mut().unwrap().material_head = false;
        let e = m.validate().unwrap_err().to_string();
        assert!(e.contains("selfplay_material_mix") && e.contains("material head"), "{e}");
        let e = d.clone().set_field("opponent_policy_fraction=1.5").unwrap_err().to_string();
        assert!(e.contains("opponent_policy_fraction") && e.contains("[0, 1]"), "{e}");
        assert_eq!(c.with_schedule_of(&d), d);
        assert!(d.set_field("opponent_fraction=2").unwrap_err().to_string().contains("opponent_fraction"));
        let e = d.set_field("opponent_random_plies=41").unwrap_err().to_string();
        assert!(e.contains("opponent_random_plies") && e.contains("is 41, expected 0 to 40"), "{e}");
        let mut r = c.clone();
        r.set_field("selfplay_random_plies=8").unwrap();
        assert_eq!(r.selfplay_random_plies, 8);
        assert_eq!(c.first_difference(&r), None, "a schedule field");
        assert_eq!(c.schedule_changes(&r).len(), 1);
        let e = r.set_field("selfplay_random_plies=41").unwrap_err().to_string();
        assert!(e.contains("selfplay_random_plies") && e.contains("is 41, expected 0 to 40"), "{e}");
        // A run config written before the field existed reads as 0 (the start position).
        let old = RunConfig::from_toml(
            &TINY.replace("opponent_random_plies = 0\n", "").replace("opponent_policy_fraction = 0.0\n", ""),
            "x.toml",
        )
        .unwrap();
        assert_eq!((old.opponent_random_plies, old.opponent_policy_fraction), (0, 0.0));
        assert_eq!(old.selfplay_random_plies, 0);
    }

    /// The replay window may grow or shrink on resume (a schedule field), within its range and
    /// never below `min_positions`.
    #[test]
    fn the_replay_window_is_a_checked_schedule_field() {
        let c = RunConfig::from_toml(TINY, "x.toml").unwrap();
        let mut w = c.clone();
        w.set_field(&format!("window_positions={}", c.window_positions * 3)).unwrap();
        assert_eq!(w.window_positions, c.window_positions * 3);
        assert_eq!(c.first_difference(&w), None, "a schedule field");
        let changes = c.schedule_changes(&w);
        assert_eq!(changes.len(), 1);
        assert_eq!(changes[0].0, "window_positions");
        assert_eq!(c.with_schedule_of(&w).window_positions, w.window_positions);
        let e = w.clone().set_field(&format!("window_positions={}", c.min_positions - 1)).unwrap_err().to_string();
        assert!(e.contains("min_positions") && e.contains("window_positions"), "{e}");
        let e = w.clone().set_field("window_positions=0").unwrap_err().to_string();
        assert!(e.contains("window_positions"), "{e}");
    }

    #[test]
    fn the_material_mix_drops_to_zero_at_its_step() {
        let c = RunConfig::from_toml(TINY, "x.toml").unwrap();
        assert_eq!(c.selfplay_material_mix_until_step, 0, "0 (the blend throughout) when absent");
        let mut m = c.clone();
        m.set_field("selfplay_material_mix=0.5").unwrap();
        assert_eq!((m.selfplay_material_mix_at(0), m.selfplay_material_mix_at(1_000_000)), (0.5, 0.5));
        m.set_field("selfplay_material_mix_until_step=3000").unwrap();
        assert_eq!(c.first_difference(&m), None, "a schedule field");
        assert_eq!(m.schedule_changes(&c).len(), 2);
        assert_eq!(m.selfplay_material_mix_at(2_999), 0.5);
        assert_eq!(m.selfplay_material_mix_at(3_000), 0.0);
        assert_eq!(m.selfplay_material_mix_at(9_000), 0.0);
        let e = m.set_field("selfplay_material_mix_until_step=-1").unwrap_err().to_string();
        assert!(e.contains("selfplay_material_mix_until_step"), "{e}");
        let back = RunConfig::from_toml(&m.to_toml(), "run/config.toml").unwrap();
        assert_eq!(back.selfplay_material_mix_until_step, 3000, "kept in a run's config.toml");
    }

    #[test]
    fn the_mate_guard_starts_at_its_step() {
        let c = RunConfig::from_toml(TINY, "x.toml").unwrap();
        assert_eq!(c.mate_guard_from_step, 0, "from the start when absent");
        let mut m = c.clone();
        m.set_field("royal_guard=true").unwrap();
        m.set_field("mate_guard=true").unwrap();
        assert!(m.mate_guard_at(0));
        m.set_field("mate_guard_from_step=1500").unwrap();
        assert_eq!(c.first_difference(&m), None, "a schedule field");
        assert_eq!((m.mate_guard_at(1_499), m.mate_guard_at(1_500), m.mate_guard_at(9_000)), (false, true, true));
        m.set_field("mate_guard=false").unwrap();
        assert!(!m.mate_guard_at(9_000), "only with the mate guard on");
        let e = m.set_field("mate_guard_from_step=soon").unwrap_err().to_string();
        assert!(e.contains("mate_guard_from_step") && !e.contains('\n'), "{e}");
        let back = RunConfig::from_toml(&m.to_toml(), "run/config.toml").unwrap();
        assert_eq!(back.mate_guard_from_step, 1500, "kept in a run's config.toml");
    }

    #[test]
    fn the_royal_guard_starts_at_its_step() {
        let c = RunConfig::from_toml(TINY, "x.toml").unwrap();
        assert_eq!(c.royal_guard_from_step, 0, "from the start when absent");
        let mut m = c.clone();
        m.set_field("royal_guard=true").unwrap();
        m.set_field("mate_guard=true").unwrap();
        assert!(m.royal_guard_at(0) && m.mate_guard_at(0));
        m.set_field("royal_guard_from_step=1500").unwrap();
        assert_eq!(c.first_difference(&m), None, "a schedule field");
        assert_eq!((m.royal_guard_at(1_499), m.royal_guard_at(1_500), m.royal_guard_at(9_000)), (false, true, true));
        assert_eq!(
            (m.mate_guard_at(1_499), m.mate_guard_at(1_500)),
            (false, true),
            "the mate guard needs the royal guard"
        );
        m.set_field("mate_guard_from_step=3000").unwrap();
        assert_eq!((m.royal_guard_at(2_000), m.mate_guard_at(2_000), m.mate_guard_at(3_000)), (true, false, true));
        m.set_field("mate_guard=false").unwrap();
        m.set_field("royal_guard=false").unwrap();
        assert!(!m.royal_guard_at(9_000), "only with the royal guard on");
        let e = m.set_field("royal_guard_from_step=-1").unwrap_err().to_string();
        assert!(e.contains("royal_guard_from_step") && !e.contains('\n'), "{e}");
        let back = RunConfig::from_toml(&m.to_toml(), "run/config.toml").unwrap();
        assert_eq!(back.royal_guard_from_step, 1500, "kept in a run's config.toml");
    }

    #[test]
    fn average_checkpoints_is_a_schedule_field_up_to_keep_checkpoints() {
        let c = RunConfig::from_toml(TINY, "x.toml").unwrap();
        assert_eq!(c.average_checkpoints, 1, "1 (the newest checkpoint alone) when absent");
        let mut m = c.clone();
        m.set_field(&format!("average_checkpoints={}", c.keep_checkpoints)).unwrap();
        assert_eq!(c.first_difference(&m), None, "a schedule field");
        let back = RunConfig::from_toml(&m.to_toml(), "run/config.toml").unwrap();
        assert_eq!(back.average_checkpoints, c.keep_checkpoints, "kept in a run's config.toml");
        for bad in ["0".to_string(), (c.keep_checkpoints + 1).to_string(), "two".into()] {
            let e = m.clone().set_field(&format!("average_checkpoints={bad}")).unwrap_err().to_string();
            assert!(e.contains("average_checkpoints") && !e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn overlapping_self_play_is_a_runtime_switch_on_by_default() {
        let c = RunConfig::from_toml(TINY, "x.toml").unwrap();
        assert!(c.overlap_selfplay);
        let without: String =
            TINY.lines().filter(|l| !l.starts_with("overlap_selfplay")).map(|l| format!("{l}\n")).collect();
        assert!(RunConfig::from_toml(&without, "old/config.toml").unwrap().overlap_selfplay, "on when absent");
        let mut m = c.clone();
        m.set_field("overlap_selfplay=false").unwrap();
        assert!(!m.overlap_selfplay);
        assert_eq!(c.first_difference(&m), None, "changeable when resuming");
        assert!(m.schedule_changes(&c).is_empty(), "not part of the learning schedule");
        let e = m.set_field("overlap_selfplay=sometimes").unwrap_err().to_string();
        assert!(e.contains("overlap_selfplay") && !e.contains('\n'), "{e}");
    }

    #[test]
    fn the_pool_is_a_schedule_field_of_older_checkpoints() {
        let c = RunConfig::from_toml(TINY, "x.toml").unwrap();
        assert_eq!((c.pool_fraction, c.pool_every_steps, c.pool_size), (0.0, 1000, 8), "off when absent");
        let mut m = c.clone();
        m.set_field("pool_fraction=0.25").unwrap();
        m.set_field("pool_every_steps=20").unwrap();
        m.set_field("pool_size=3").unwrap();
        assert_eq!(c.first_difference(&m), None, "schedule fields");
        assert_eq!(m.schedule_changes(&c).len(), 3);
        let back = RunConfig::from_toml(&m.to_toml(), "run/config.toml").unwrap();
        assert_eq!((back.pool_fraction, back.pool_every_steps, back.pool_size), (0.25, 20, 3), "kept in config.toml");
        for (bad, what) in [
            ("pool_fraction=1.5", "[0, 1]"),
            ("pool_every_steps=25", "multiple of `checkpoint_every_steps` (10)"),
            ("pool_every_steps=0", "multiple of"),
            ("pool_size=0", "expected 1 to 1000"),
            ("pool_size=many", "pool_size"),
        ] {
            let e = m.clone().set_field(bad).unwrap_err().to_string();
            assert!(e.contains(what) && !e.contains('\n'), "{bad}: {e}");
        }
        // Without pool games the pool's step need not match the checkpoints.
        let mut off = c.clone();
        off.set_field("pool_every_steps=25").unwrap();
    }
}
