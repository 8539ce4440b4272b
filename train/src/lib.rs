//! Matches between engines and what is learnt from them: the arena (Elo, SPRT, game records),
//! self-play and training.

pub mod arena;
pub mod bench;
pub mod bootstrap;
pub mod config;
pub mod go;
pub mod learner;
pub mod metrics;
pub mod plot;
pub mod replay;
pub mod run;
pub mod selfplay;
pub mod stats;

use engine::mcts::MctsPlayer;
use engine::player::{engine_player, EngineSpec, Player, SpecError};
use engine::Rules;
use nn::search::{load_network, NetEvaluator, NetSource};

/// Keys of an `mcts:` spec handled here (the search keys are `MctsConfig::SPEC_KEYS`).
pub const MCTS_NET_KEYS: [&str; 6] = ["checkpoint", "config", "threads", "backend", "material_mix", "qsearch_mix"];

/// Build any engine from its spec. The one place where kinds built outside the rules crate
/// (MCTS with a network) are added, so `arena`, `go`, `play` and `xboard` accept every spec
/// alike.
pub fn make_player(spec: &EngineSpec, rules: &Rules) -> Result<Box<dyn Player>, SpecError> {
    match spec.kind.as_str() {
        "mcts" => Ok(Box::new(mcts_player(spec, rules)?)),
        _ => engine_player(spec, rules),
    }
}

/// `mcts:checkpoint=PATH|random[,config=NET.toml][,threads=T][,backend=B][,visits=N,gumbel=K,
/// cpuct=C,...]`: MCTS guided by a network. `checkpoint=random` is a fresh network of the
/// default config (`configs/net-cpu.toml`, or `config=`), seeded by `seed`. `threads` sets the
/// CPU backend's worker threads (process-wide, first setting wins). `backend` picks the Burn
/// device (`cpu`, `flex`, `ndarray`, `wgpu`, `cuda` as compiled in; default: the best one).
/// `material_mix=W` blends the network's material head into the value the search sees
/// ([`NetEvaluator::set_material_mix`]); `qsearch_mix=W` blends in the alpha-beta engine's
/// quiescence score of each leaf ([`NetEvaluator::set_qsearch_mix`]).
pub fn mcts_player(spec: &EngineSpec, rules: &Rules) -> Result<MctsPlayer<NetEvaluator>, SpecError> {
    let mut keys: Vec<&str> = engine::mcts::MctsConfig::SPEC_KEYS.to_vec();
    keys.extend_from_slice(&MCTS_NET_KEYS);
    spec.check_keys(&keys)?;
    let checkpoint = spec
        .get("checkpoint")
        .ok_or_else(|| spec.error("missing 'checkpoint=PATH' (or 'checkpoint=random' for an untrained network)"))?;
    if spec.get("config").is_some() && checkpoint != "random" {
        return Err(spec.error("'config' only applies to 'checkpoint=random' (a checkpoint carries its own config)"));
    }
    if let Some(t) = spec.number::<usize>("threads")? {
        if t == 0 {
            return Err(spec.error("threads must be at least 1"));
        }
        set_cpu_threads(t);
    }
    let device = match spec.get("backend") {
        Some(b) => nn::backend::device_by_name(b).map_err(|e| spec.error(&e))?,
        None => nn::backend::default_device(),
    };
    let seed = spec.number::<u64>("seed")?.unwrap_or(0);
    let source = NetSource::parse(checkpoint, spec.get("config"), seed);
    let tag = rules.preset_name().unwrap_or("custom");
    let ckpt = load_network(&source, tag, &device).map_err(|e| spec.error(&e))?;
    let mut evaluator = NetEvaluator::new(ckpt.network, &device);
    if let Some(w) = spec.number::<f32>("material_mix")? {
        evaluator.set_material_mix(w).map_err(|e| spec.error(&e))?;
    }
    if let Some(w) = spec.number::<f32>("qsearch_mix")? {
        evaluator.set_qsearch_mix(w).map_err(|e| spec.error(&e))?;
    }
    MctsPlayer::from_spec(spec, evaluator, &MCTS_NET_KEYS)
}

/// Size the process-wide worker pool the CPU backend runs on (only the first call counts).
pub fn set_cpu_threads(threads: usize) {
    let _ = rayon::ThreadPoolBuilder::new().num_threads(threads).build_global();
}

/// The shipped network, relative to the repository root.
pub const SHIPPED_CHECKPOINT: &str = "checkpoints/tenjiku-cpu.ckpt";

/// Visits per move of the default engine (about a second per move on a 2-core CPU).
pub const DEFAULT_VISITS: u32 = 400;

/// The shipped network's file: in the current directory's `checkpoints/`, else in the source
/// tree this binary was built from (so `play` finds it from any directory of a clone).
pub fn shipped_checkpoint() -> Option<std::path::PathBuf> {
    let here = std::path::PathBuf::from(SHIPPED_CHECKPOINT);
    if here.is_file() {
        return Some(here);
    }
    let built = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(SHIPPED_CHECKPOINT);
    built.is_file().then_some(built)
}

/// The engine `play` and `xboard` use when none is given: MCTS with the shipped network, or
/// the alpha-beta baseline at 1 s/move when no network ships with this tree.
pub fn default_engine_spec() -> String {
    match shipped_checkpoint() {
        Some(p) => format!("mcts:checkpoint={},visits={DEFAULT_VISITS}", p.display()),
        None => "alphabeta:time=1s".to_string(),
    }
}

