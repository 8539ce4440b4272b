//! The network as the MCTS searcher's evaluator: [`NetEvaluator`] implements
//! [`search::mcts::Evaluator`] (encode each leaf, index its legal moves, one batched network call,
//! priors masked to the legal moves, WDL value), and [`load_network`] turns an engine spec's
//! `checkpoint=` value (a path or `random`) into a network.
//!
//! The search crate never sees Burn: it asks for evaluations through its trait, and this module
//! is the only bridge. (The quiescence blend of `qsearch_mix` wraps this evaluator in
//! `search::mcts::QsearchBlend`.)

use std::path::Path;

use search::mcts::{EvalRequest, Evaluation, Evaluator};

use crate::backend::{Device, Precision, PrecisionError};
use crate::checkpoint::{self, Checkpoint};
use crate::encoding::{encode, HistoryFeatures, INPUT_SIZE};
use crate::inference;
use crate::network::{NetConfig, Network};
use crate::policy::legal_indices;

/// The default network config (`configs/net-cpu.toml`), built in so `checkpoint=random` works
/// from any directory.
pub const DEFAULT_NET_CONFIG: &str = include_str!("../../configs/net-cpu.toml");

/// The built-in default network config.
pub fn default_net_config() -> NetConfig {
    NetConfig::from_toml(DEFAULT_NET_CONFIG).expect("configs/net-cpu.toml is a valid network config")
}

/// A batched network evaluator for the searcher. Buffers grow to the largest batch seen and are
/// reused, so a search allocates nothing per leaf here.
pub struct NetEvaluator {
    inner: inference::Inference,
    inputs: Vec<f32>,
    legal: Vec<usize>,
    offsets: Vec<usize>,
    scratch: Vec<usize>,
    /// Positions evaluated so far.
    pub positions: u64,
    /// Network calls so far.
    pub calls: u64,
    /// Time spent in those calls (the network on its device and the copies to and from it;
    /// not the encoding): the device's busy time as the caller sees it.
    pub busy: std::time::Duration,
    /// Weight of the material head in the value the search sees (0 = the WDL head alone).
    material_mix: f32,
}

impl NetEvaluator {
    /// An evaluator running `net` on `device` (in inference mode).
    pub fn new(net: Network, device: &Device) -> Self {
        Self {
            inner: inference::Inference::new(net, device),
            inputs: Vec::new(),
            legal: Vec::new(),
            offsets: Vec::new(),
            scratch: Vec::new(),
            positions: 0,
            calls: 0,
            busy: std::time::Duration::ZERO,
            material_mix: 0.0,
        }
    }

    /// Blend the material head into the value the search sees:
    /// `value = (1 − w) · (win − loss) + w · tanh(material)`, where `material` is the head's
    /// prediction of the game's final material balance in units of the run's `material_scale`
    /// (1000 cp in every shipped config), so `tanh` maps ±1000 cp to ±0.76. The WDL head alone
    /// learns mostly from games decided by a royal hunt; the material head gives the search a
    /// sense of material in quieter positions. `w` must be in `[0, 1]`; a network without a
    /// material head ignores it. Returns `Err` with a one-line reason otherwise.
    pub fn set_material_mix(&mut self, w: f32) -> Result<(), MaterialMixError> {
        if !(0.0..=1.0).contains(&w) {
            return Err(MaterialMixError::OutOfRange(w));
        }
        if w > 0.0 && !self.network().has_material_head() {
            return Err(MaterialMixError::NoMaterialHead);
        }
        self.material_mix = w;
        Ok(())
    }

    /// Compute in `precision` from now on (the network's weights are cast once); `Err` when
    /// the device cannot compute in it.
    pub fn set_precision(&mut self, precision: Precision) -> Result<(), PrecisionError> {
        if precision != self.inner.precision() {
            let device = self.inner.device().clone();
            let net = self.inner.network().clone();
            // Only an f32 evaluator still holds the weights as trained.
            if self.inner.precision() != Precision::F32 {
                return Err(PrecisionError::AlreadySet { from: self.inner.precision().name(), to: precision.name() });
            }
            self.inner = inference::Inference::with_precision(net, &device, precision)?;
        }
        Ok(())
    }

    /// Swap in another network (self-play picking up a new checkpoint), keeping the buffers and
    /// the precision.
    pub fn set_network(&mut self, net: Network) {
        let device = self.inner.device().clone();
        let precision = self.inner.precision();
        self.inner =
            inference::Inference::with_precision(net, &device, precision).expect("the precision was checked when set");
    }

    /// The network.
    pub fn network(&self) -> &Network {
        self.inner.network()
    }

    /// The device it runs on.
    pub fn device(&self) -> &Device {
        self.inner.device()
    }
}

/// A material weight that cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MaterialMixError {
    #[error("material_mix must be between 0 and 1, got {0}")]
    OutOfRange(f32),
    #[error("material_mix needs a network with a material head (this checkpoint has none)")]
    NoMaterialHead,
}

impl Evaluator for NetEvaluator {
    fn evaluate(&mut self, requests: &[EvalRequest<'_>], out: &mut [Evaluation]) {
        let n = requests.len();
        if n == 0 {
            return;
        }
        self.inputs.resize(n * INPUT_SIZE, 0.0);
        self.legal.clear();
        self.offsets.clear();
        self.offsets.push(0);
        for (i, r) in requests.iter().enumerate() {
            let hist = HistoryFeatures { repetitions: r.repetitions, ply: r.ply };
            encode(r.position, r.table, &hist, &mut self.inputs[i * INPUT_SIZE..(i + 1) * INPUT_SIZE]);
            legal_indices(r.moves, r.position.side_to_move(), &mut self.scratch);
            self.legal.extend_from_slice(&self.scratch);
            self.offsets.push(self.legal.len());
        }
        let t = std::time::Instant::now();
        let res = self.inner.evaluate_masked(&self.inputs, n, &self.legal, &self.offsets);
        self.busy += t.elapsed();
        for (i, o) in out.iter_mut().enumerate().take(n) {
            o.priors.clear();
            o.priors.extend_from_slice(&res.priors[self.offsets[i]..self.offsets[i + 1]]);
            o.set_wdl(res.wdl[i]);
            if self.material_mix > 0.0 {
                let w = self.material_mix;
                o.value = (1.0 - w) * o.value + w * res.material[i].tanh();
            }
        }
        self.positions += n as u64;
        self.calls += 1;
    }
}

/// Where a network comes from in an engine spec: `checkpoint=PATH` or `checkpoint=random`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetSource {
    /// A fresh random network of a config (the built-in default when `None`) from a seed.
    Random { config: Option<String>, seed: u64 },
    /// A checkpoint file.
    File(String),
}

impl NetSource {
    /// `random` or a path; `config` names the network config of a random network.
    pub fn parse(checkpoint: &str, config: Option<&str>, seed: u64) -> NetSource {
        if checkpoint == "random" {
            NetSource::Random { config: config.map(String::from), seed }
        } else {
            NetSource::File(checkpoint.to_string())
        }
    }
}

/// Load (or create) the network of `source` on `device`. Errors are one line: a missing,
/// corrupt or mismatched checkpoint, or a bad config file.
pub fn load_network(source: &NetSource, rules: &str, device: &Device) -> Result<Checkpoint, NetLoadError> {
    match source {
        NetSource::Random { config, seed } => {
            let cfg = match config {
                Some(path) => NetConfig::load(path)?,
                None => default_net_config(),
            };
            Ok(Checkpoint::random(&cfg, rules, *seed, device))
        }
        NetSource::File(path) => Ok(checkpoint::load(Path::new(path), device)?),
    }
}

/// A network that could not be had: a bad network config, or a checkpoint that does not load.
#[derive(Debug, thiserror::Error)]
pub enum NetLoadError {
    #[error(transparent)]
    Config(#[from] crate::network::ConfigError),
    #[error(transparent)]
    Checkpoint(#[from] crate::checkpoint::CheckpointError),
}
