//! Evaluation games: every `eval_every_checkpoints` checkpoints, the new network (MCTS at
//! `eval_visits`) plays `eval_games` arena games against the previously evaluated checkpoint,
//! against `eval_baseline` and, with `eval_movetime_ms`, against plain alpha-beta at equal time
//! per move, from `eval_opening_plies` random plies (balanced within `eval_balanced_cp` when
//! set), `threads` games at a time. Elo and its 95% interval go into a metrics row, the games
//! into `eval/`.

use crate::config::RunConfig;
use crate::learner::checkpoint_name;
use crate::metrics::{Log, Row};
use engine::Rules;
use play::arena::{self, Adjudication, ArenaConfig, ArenaReport, Balance};
use search::EngineSpec;
use std::path::Path;
use std::sync::Arc;

/// Random plies from the start position before each pair of evaluation games when the config
/// does not say (`eval_opening_plies`): few, because a random ply in Tenjiku often leaves a
/// royal en prise and the game is then decided by the opening (fair within a colour-swapped
/// pair, but it dilutes the comparison) unless the openings are balanced (`eval_balanced_cp`).
pub const EVAL_OPENING_PLIES: u32 = 2;

/// Depth of the alpha-beta search that checks a balanced evaluation opening (the arena's
/// `--balanced-depth` default).
pub const EVAL_BALANCE_DEPTH: u32 = 3;

/// Elo and half the width of its 95% interval.
fn elo_of(r: &ArenaReport) -> (Option<f64>, Option<f64>) {
    (r.total.elo(), r.total.elo_ci95().map(|(lo, hi)| (hi - lo) / 2.0))
}

/// Rate the checkpoint at `step` against the previous evaluated one and the baseline.
pub(super) fn evaluate(
    cfg: &RunConfig,
    ckpt_dir: &Path,
    eval_dir: &Path,
    step: u64,
    rules: &Rules,
    rules_tag: &str,
    log: &mut Log,
) -> Row {
    let mut keys = if cfg.backend == "default" { String::new() } else { format!(",backend={}", cfg.backend) };
    let mix = cfg.selfplay_material_mix_at(step);
    if mix > 0.0 {
        // The network is rated with the search its self-play uses.
        keys += &format!(",material_mix={mix}");
    }
    if cfg.mate_guard_at(step) {
        keys += ",guard=2";
    } else if cfg.royal_guard_at(step) {
        keys += ",guard=1";
    }
    let mcts = |s: u64| {
        format!("mcts:checkpoint={},visits={}{keys}", ckpt_dir.join(checkpoint_name(s)).display(), cfg.eval_visits)
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
            opening_plies: cfg.eval_opening_plies,
            opening_fens: Vec::new(),
            balance: (cfg.eval_balanced_cp > 0)
                .then_some(Balance { depth: EVAL_BALANCE_DEPTH, max_cp: cfg.eval_balanced_cp }),
            // The loop waits for the evaluation: use the run's cores (each game's engines are
            // seeded by its index, so at fixed visits the results do not depend on this).
            concurrency: cfg.threads,
            seed: search::mix_seed(cfg.seed ^ 0xE7A1, step),
            adjudication: Adjudication {
                material: (cfg.eval_adjudicate_cp > 0).then_some((cfg.eval_adjudicate_cp, cfg.eval_adjudicate_plies)),
                max_plies: cfg.eval_max_plies,
                ..Adjudication::default()
            },
            sprt: None,
            pgn: Some(eval_dir.join(format!("step-{step:09}-vs-{name}.pgn"))),
            progress: false,
        };
        match arena::run(&ac, Arc::new(play::build)) {
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
        let a =
            format!("mcts:checkpoint={},time={ms}ms,gumbel=0{keys}", ckpt_dir.join(checkpoint_name(step)).display());
        if let Some(r) = play(&a, format!("alphabeta:time={ms}ms"), "equal-time") {
            (row.elo_equal_time, row.elo_equal_time_ci) = elo_of(&r);
        }
    }
    row
}
