//! The one engine registry: every engine spec (`random`, `alphabeta`, `mcts` with a network)
//! is built here, so `arena`, `go`, `play`, `xboard` and the trainer's evaluation games accept
//! the same specs with the same keys (lc0's `SearchFactory`).

use engine::Rules;
use nn::evaluator::{load_network, NetEvaluator, NetSource};
use search::alphabeta::AlphaBeta;
use search::mcts::{Evaluator, MctsConfig, MctsPlayer, QsearchBlend};
use search::{EngineSpec, Player, RandomPlayer, SpecError};

/// The engine kinds and what each is.
pub const ENGINES: [(&str, &str); 3] = [
    ("random", "a uniformly random mover: random[:seed=N]"),
    ("alphabeta", "the alpha-beta baseline: alphabeta[:depth=N,nodes=N,time=DUR,tt=MB,seed=N]"),
    ("mcts", "MCTS with a network: mcts:checkpoint=PATH|random[,visits=N,...]"),
];

/// Keys of an `mcts:` spec that choose the network and how its values are read; the search
/// keys are [`MctsConfig::SPEC_KEYS`].
pub const MCTS_NET_KEYS: [&str; 7] =
    ["checkpoint", "config", "threads", "backend", "precision", "material_mix", "qsearch_mix"];

/// Most CPU threads an `mcts:threads=` may ask for.
pub const MAX_THREADS: usize = 1024;

/// An MCTS player over the network, possibly wrapped (the quiescence blend).
pub type NetPlayer = MctsPlayer<Box<dyn Evaluator + Send>>;

/// Build any engine from its spec.
pub fn build(spec: &EngineSpec, rules: &Rules) -> Result<Box<dyn Player>, SpecError> {
    match spec.kind.as_str() {
        "random" => {
            spec.check_keys(&["seed"])?;
            Ok(Box::new(RandomPlayer::new(spec.number("seed")?.unwrap_or(0))))
        }
        "alphabeta" => {
            check_tt_memory(spec)?;
            Ok(Box::new(AlphaBeta::from_spec(spec)?))
        }
        "mcts" => Ok(Box::new(mcts_player(spec, rules)?)),
        other => Err(SpecError::UnknownEngine {
            spec: spec.to_string(),
            kind: other.to_string(),
            expected: ENGINES.map(|(k, _)| k).join(", "),
        }),
    }
}

/// Check a spec by building its engine (a network spec loads its checkpoint), so a bad spec
/// is refused where it is given, not at first use.
pub fn check(spec: &str, rules: &Rules) -> Result<EngineSpec, SpecError> {
    let parsed = EngineSpec::parse(spec)?;
    build(&parsed, rules)?;
    Ok(parsed)
}

/// A transposition table (`tt=MB`) must fit in the memory the machine has available (half of
/// it, leaving room for the rest of the process): checked before it is allocated.
fn check_tt_memory(spec: &EngineSpec) -> Result<(), SpecError> {
    let Some(mb) = spec.number_in::<usize>("tt", 0, search::alphabeta::MAX_TT_MB)? else { return Ok(()) };
    match nn::host::available_memory() {
        Some(bytes) if (mb as u64) << 20 > bytes / 2 => Err(spec.out_of_range(
            "tt",
            mb,
            format!(
                "at most {} MB: half of the {} this machine has available",
                bytes / 2 >> 20,
                nn::host::format_bytes(bytes)
            ),
        )),
        _ => Ok(()),
    }
}

/// `mcts:checkpoint=PATH|random[,config=NET.toml][,threads=T][,backend=B][,visits=N,gumbel=K,
/// cpuct=C,...]`: MCTS guided by a network. `checkpoint=random` is a fresh network of the
/// default config (`configs/net-cpu.toml`, or `config=`), seeded by `seed`. `threads` sets the
/// CPU backend's worker threads (process-wide, first setting wins; 1 to 1024). `backend` picks
/// the Burn device (`cpu`, `flex`, `ndarray`, `wgpu`, `vulkan`, `cuda` as compiled in; default:
/// the best one); `precision` its float type for inference (`f32`, `bf16`, `f16`; default f32).
/// `material_mix=W` (0 to 1) blends the network's material head into the value the
/// search sees ([`NetEvaluator::set_material_mix`]); `qsearch_mix=W` (0 to 1) blends in the
/// alpha-beta engine's quiescence score of each leaf ([`QsearchBlend`]).
pub fn mcts_player(spec: &EngineSpec, rules: &Rules) -> Result<NetPlayer, SpecError> {
    let mut keys: Vec<&str> = MctsConfig::SPEC_KEYS.to_vec();
    keys.extend_from_slice(&MCTS_NET_KEYS);
    spec.check_keys(&keys)?;
    let checkpoint = spec
        .get("checkpoint")
        .ok_or_else(|| spec.missing("checkpoint", "checkpoint=PATH, or checkpoint=random for an untrained network"))?;
    if spec.get("config").is_some() && checkpoint != "random" {
        return Err(spec.invalid("'config' only applies to 'checkpoint=random' (a checkpoint carries its own config)"));
    }
    if let Some(t) = spec.number_in::<usize>("threads", 1, MAX_THREADS)? {
        set_cpu_threads(t);
    }
    let device = match spec.get("backend") {
        Some(b) => nn::backend::device_by_name(b).map_err(|e| spec.unavailable(e))?,
        None => nn::backend::default_device(),
    };
    let seed = spec.number::<u64>("seed")?.unwrap_or(0);
    let source = NetSource::parse(checkpoint, spec.get("config"), seed);
    let tag = rules.preset_name().unwrap_or("custom");
    let ckpt = load_network(&source, tag, &device).map_err(|e| spec.unavailable(e))?;
    let mut net = NetEvaluator::new(ckpt.network, &device);
    if let Some(p) = spec.get("precision") {
        let p: nn::backend::Precision =
            p.parse().map_err(|e: nn::backend::PrecisionError| spec.invalid(e.to_string()))?;
        net.set_precision(p).map_err(|e| spec.unavailable(e))?;
    }
    if let Some(w) = spec.number_in::<f32>("material_mix", 0.0, 1.0)? {
        net.set_material_mix(w).map_err(|e| spec.invalid(e.to_string()))?;
    }
    let evaluator: Box<dyn Evaluator + Send> = match spec.number_in::<f32>("qsearch_mix", 0.0, 1.0)? {
        Some(w) if w > 0.0 => Box::new(QsearchBlend::new(net, w).map_err(|e| spec.invalid(e))?),
        _ => Box::new(net),
    };
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

/// The engine `play` and `xboard` use when none is given: MCTS with the shipped network and
/// the royal guard (it beat the same search without it 66.7% over 114 games at 64 visits,
/// BENCHMARKS.md "Royal guard"), or the alpha-beta baseline at 1 s/move when no network ships
/// with this tree.
pub fn default_engine_spec() -> String {
    match shipped_checkpoint() {
        Some(p) => format!("mcts:checkpoint={},visits={DEFAULT_VISITS},guard=1", p.display()),
        None => "alphabeta:time=1s".to_string(),
    }
}
