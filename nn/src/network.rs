//! The policy/value network: a residual tower with a policy head, a win/draw/loss value head and
//! optional moves-left and material-balance heads.
//!
//! ```text
//! input [B, NUM_PLANES, 16, 16]
//!   → 3×3 (or 1×1) conv (channels) → BN → ReLU
//!   → blocks × residual block: 3×3 conv → BN → ReLU (→ + global-pooling bias) → 3×3 conv → BN
//!                              (→ squeeze-excitation) + skip → ReLU
//!   ├→ policy:  3×3 conv (policy_channels) → BN → ReLU (→ + global-pooling bias)
//!   │                                                  ┬→ 1×1 projection → NUM_MOVE_PLANES × 256 logits
//!   │                                                  └→ mean over the board → linear → pass logit
//!   ├→ value:   1×1 conv (value_channels) → BN → ReLU → linear (value_hidden) → ReLU → linear → 3 (W, D, L)
//!   ├→ moves-left (optional): same shape as the value head → 1
//!   ├→ material (optional):   same shape as the value head → 1
//!   └→ captures (optional, training only): 1×1 conv with bias → 256 logits, one per square:
//!                             will the piece standing there be taken within a few plies
//! ```
//!
//! The policy logits are laid out as [`crate::policy`] numbers moves:
//! `index = square * NUM_MOVE_PLANES + plane` (from-square major), then the pass entry at
//! `POLICY_SIZE - 1`. The value head's outputs are logits from the point of view of the side to
//! move; [`crate::inference`] turns them into probabilities.

use std::path::Path;

use burn::module::{Module, Param};
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Initializer, Linear, LinearConfig, PaddingConfig2d};
use burn::tensor::activation::{relu, sigmoid};
use burn::tensor::{Device, Tensor};
use serde::{Deserialize, Serialize};

use crate::encoding::NUM_PLANES;
use crate::policy::{NUM_MOVE_PLANES, POLICY_SIZE};

/// Board side; the network works on 16×16 planes.
pub const BOARD: usize = 16;
/// Squares per plane.
pub const SQUARES: usize = BOARD * BOARD;

/// Shape of the network. Read from a TOML file (see `configs/net-*.toml`, where every field is
/// commented); unknown fields are rejected.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetConfig {
    /// Residual blocks in the tower.
    pub blocks: usize,
    /// Channels of the tower (every 3×3 convolution in it).
    pub channels: usize,
    /// Kernel of the input convolution from the `NUM_PLANES` input planes to `channels`: 3 (a
    /// 3×3 convolution, the default) or 1 (a per-square embedding, ~9× cheaper; the tower's
    /// 3×3 convolutions then do all the spatial mixing).
    #[serde(default = "default_input_kernel")]
    pub input_kernel: usize,
    /// Squeeze-excitation reduction ratio: each block pools its output over the board and
    /// rescales/shifts every channel through a `channels / se_ratio` bottleneck. 0 turns it off.
    #[serde(default)]
    pub se_ratio: usize,
    /// Global-pooling biases (KataGo's global pooling, as biases): in each residual block between
    /// its two convolutions, and on the policy head's features, the mean and the max of every
    /// channel over the board go through a linear layer to a per-channel bias added at every
    /// square, so each square sees the whole board (3×3 convolutions see 2 squares further per
    /// block). The layers start at zero, so a new network computes what it would without them
    /// (and draws the same random weights from the same seed). Off when absent.
    #[serde(default, skip_serializing_if = "is_false")]
    pub global_pool: bool,
    /// Channels of the policy head's 3×3 convolution, before the 1×1 projection to move planes.
    pub policy_channels: usize,
    /// Channels of the value head's 1×1 convolution (also used by the auxiliary heads).
    pub value_channels: usize,
    /// Hidden units of the value head's fully connected layer (also used by the auxiliary heads).
    pub value_hidden: usize,
    /// Predict the number of plies left in the game (one output, trained with a Huber loss).
    #[serde(default)]
    pub moves_left_head: bool,
    /// Predict the material balance of the final position (one output, side to move's view).
    #[serde(default)]
    pub material_head: bool,
    /// Capture head (an auxiliary target, like KataGo's ownership head): one logit per square,
    /// whether the piece standing there (either side's) is taken within the next few plies of
    /// the game. A dense, spatial, tactical target that trains the tower to see what hangs; the
    /// searches never read it. Its layer is drawn after every other, so the rest of a new network
    /// is what the same seed gives without it. Off when absent.
    #[serde(default, skip_serializing_if = "is_false")]
    pub capture_head: bool,
}

fn default_input_kernel() -> usize {
    3
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A network config that cannot be used, one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read network config {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("{path}: {error}")]
    InFile { path: String, error: Box<ConfigError> },
    /// TOML that does not parse, or a field missing, unknown or of the wrong type.
    #[error("bad network config: {msg}")]
    Toml { msg: String },
    #[error("bad network config: '{field}' is {value}, expected {range}")]
    OutOfRange { field: &'static str, value: usize, range: String },
    #[error("bad network config: {parameters} parameters, more than the {MAX_PARAMETERS} a network may have")]
    TooLarge { parameters: u64 },
}

/// Ranges of the sizes of a network config (documented in `configs/net-cpu.toml`).
pub const MAX_BLOCKS: usize = 64;
pub const MAX_CHANNELS: usize = 1024;
pub const MAX_VALUE_CHANNELS: usize = 256;
pub const MAX_VALUE_HIDDEN: usize = 4096;
/// The most parameters a network may have (2^28: 1 GiB of f32 weights, about 5 GiB to train).
pub const MAX_PARAMETERS: u64 = 1 << 28;

impl NetConfig {
    /// Parse a config from TOML text. Unknown or missing fields are an error naming the field.
    pub fn from_toml(text: &str) -> Result<Self, ConfigError> {
        // toml's message is several lines (with a source excerpt); keep it on one.
        let cfg: NetConfig =
            toml::from_str(text).map_err(|e| ConfigError::Toml { msg: e.message().trim().replace('\n', " ") })?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Read a config file.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, ConfigError> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        let text = engine::input::read_text(path, engine::input::MAX_CONFIG_BYTES)
            .map_err(|e| ConfigError::Read { path: shown.clone(), reason: e.to_string() })?;
        Self::from_toml(&text).map_err(|e| ConfigError::InFile { path: shown, error: Box::new(e) })
    }

    /// The config as TOML text (the form checkpoints store).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("NetConfig serialises")
    }

    /// Check every size against its range, and the whole against [`MAX_PARAMETERS`], before
    /// anything is allocated.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let ranges = [
            ("blocks", self.blocks, 0, MAX_BLOCKS),
            ("channels", self.channels, 1, MAX_CHANNELS),
            ("policy_channels", self.policy_channels, 1, MAX_CHANNELS),
            ("value_channels", self.value_channels, 1, MAX_VALUE_CHANNELS),
            ("value_hidden", self.value_hidden, 1, MAX_VALUE_HIDDEN),
            ("se_ratio", self.se_ratio, 0, self.channels),
        ];
        for (field, value, lo, hi) in ranges {
            if !(lo..=hi).contains(&value) {
                let range =
                    if field == "se_ratio" { format!("0 (off) to 'channels' ({hi})") } else { format!("{lo} to {hi}") };
                return Err(ConfigError::OutOfRange { field, value, range });
            }
        }
        if self.input_kernel != 1 && self.input_kernel != 3 {
            return Err(ConfigError::OutOfRange {
                field: "input_kernel",
                value: self.input_kernel,
                range: "1 or 3".into(),
            });
        }
        let parameters = self.parameter_count();
        if parameters > MAX_PARAMETERS {
            return Err(ConfigError::TooLarge { parameters });
        }
        Ok(())
    }

    /// Every float the network stores, as Burn's `num_params` counts them: weights, biases,
    /// batch-norm scales and shifts, and batch-norm running means and variances (not trained, but
    /// held in memory and in checkpoints). Layers as [`NetConfig::flops_per_position`] counts them.
    pub fn parameter_count(&self) -> u64 {
        let s = SQUARES as u64;
        let c = self.channels as u64;
        // The convolutions have no bias (batch norm follows each); the move projection has one.
        let conv = |k: u64, cin: u64, cout: u64| k * k * cin * cout;
        let bn = |ch: u64| 4 * ch;
        let fc = |i: u64, o: u64| i * o + o;
        let k = self.input_kernel as u64;
        let mut n = conv(k, NUM_PLANES as u64, c) + bn(c);
        n += self.blocks as u64 * 2 * (conv(3, c, c) + bn(c));
        let se = self.se_channels() as u64;
        if se > 0 {
            n += self.blocks as u64 * (fc(c, se) + fc(se, 2 * c));
        }
        let p = self.policy_channels as u64;
        n += conv(3, c, p) + bn(p) + fc(p, NUM_MOVE_PLANES as u64) + fc(p, 1);
        if self.global_pool {
            n += self.blocks as u64 * fc(2 * c, c) + fc(2 * p, p);
        }
        let v = self.value_channels as u64;
        let h = self.value_hidden as u64;
        let scalar_head = |out: u64| conv(1, c, v) + bn(v) + fc(v * s, h) + fc(h, out);
        n += scalar_head(3);
        if self.moves_left_head {
            n += scalar_head(1);
        }
        if self.material_head {
            n += scalar_head(1);
        }
        if self.capture_head {
            n += c + 1;
        }
        n
    }

    /// Width of the squeeze-excitation bottleneck (0 when off).
    pub fn se_channels(&self) -> usize {
        self.channels.checked_div(self.se_ratio).map_or(0, |c| c.max(1))
    }

    /// FLOPs of the policy head's 1×1 projection to move planes (part of
    /// [`NetConfig::flops_per_position`]; skipped by masked inference).
    pub fn projection_flops(&self) -> u64 {
        2 * self.policy_channels as u64 * NUM_MOVE_PLANES as u64 * SQUARES as u64
    }

    /// Floating-point operations of one position's forward pass (a multiply-add counts 2).
    /// Convolutions and fully connected layers only; normalisation, activations and pooling are
    /// left out (under 1% here).
    pub fn flops_per_position(&self) -> u64 {
        let s = SQUARES as u64;
        let c = self.channels as u64;
        let conv3 = |cin: u64, cout: u64| 2 * 9 * cin * cout * s;
        let conv1 = |cin: u64, cout: u64| 2 * cin * cout * s;
        let fc = |i: u64, o: u64| 2 * i * o;
        let mut f = if self.input_kernel == 1 { conv1(NUM_PLANES as u64, c) } else { conv3(NUM_PLANES as u64, c) };
        f += self.blocks as u64 * 2 * conv3(c, c);
        let se = self.se_channels() as u64;
        if se > 0 {
            f += self.blocks as u64 * (fc(c, se) + fc(se, 2 * c));
        }
        let p = self.policy_channels as u64;
        f += conv3(c, p) + conv1(p, NUM_MOVE_PLANES as u64) + fc(p, 1);
        if self.global_pool {
            f += self.blocks as u64 * fc(2 * c, c) + fc(2 * p, p);
        }
        let v = self.value_channels as u64;
        let h = self.value_hidden as u64;
        let scalar_head = |out: u64| conv1(c, v) + fc(v * s, h) + fc(h, out);
        f += scalar_head(3);
        if self.moves_left_head {
            f += scalar_head(1);
        }
        if self.material_head {
            f += scalar_head(1);
        }
        if self.capture_head {
            f += conv1(c, 1);
        }
        f
    }
}

fn conv3(cin: usize, cout: usize, device: &Device) -> Conv2d {
    Conv2dConfig::new([cin, cout], [3, 3])
        .with_padding(PaddingConfig2d::Explicit(1, 1, 1, 1))
        .with_bias(false)
        .init(device)
}

fn conv1(cin: usize, cout: usize, device: &Device) -> Conv2d {
    Conv2dConfig::new([cin, cout], [1, 1]).with_bias(false).init(device)
}

fn bn(c: usize, device: &Device) -> BatchNorm {
    BatchNormConfig::new(c).init(device)
}

/// Squeeze-excitation: per-channel scale (sigmoid) and shift from the board-pooled activations.
#[derive(Module, Debug)]
pub struct SqueezeExcitation {
    fc1: Linear,
    fc2: Linear,
}

impl SqueezeExcitation {
    fn new(channels: usize, hidden: usize, device: &Device) -> Self {
        Self {
            fc1: LinearConfig::new(channels, hidden).init(device),
            fc2: LinearConfig::new(hidden, 2 * channels).init(device),
        }
    }

    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let [b, c, _, _] = x.dims();
        let pooled = x.clone().mean_dims(&[2, 3]).reshape([b, c]);
        let h = relu(self.fc1.forward(pooled));
        let gb = self.fc2.forward(h);
        let gamma = sigmoid(gb.clone().narrow(1, 0, c)).reshape([b, c, 1, 1]);
        let beta = gb.narrow(1, c, c).reshape([b, c, 1, 1]);
        x * gamma + beta
    }
}

/// Global-pooling bias: the mean and the max of each channel over the board, through a linear
/// layer, added to every square of every channel. Zero-initialised, so a new one adds nothing
/// (and draws nothing from the random generator).
#[derive(Module, Debug)]
pub struct GlobalPoolBias {
    fc: Linear,
}

impl GlobalPoolBias {
    fn new(channels: usize, device: &Device) -> Self {
        Self { fc: LinearConfig::new(2 * channels, channels).with_initializer(Initializer::Zeros).init(device) }
    }

    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let [b, c, _, _] = x.dims();
        let mean = x.clone().mean_dims(&[2, 3]).reshape([b, c]);
        let max = x.clone().reshape([b, c, SQUARES]).max_dim(2).reshape([b, c]);
        let bias = self.fc.forward(Tensor::cat(vec![mean, max], 1));
        x + bias.reshape([b, c, 1, 1])
    }
}

/// One residual block.
#[derive(Module, Debug)]
pub struct ResidualBlock {
    conv1: Conv2d,
    bn1: BatchNorm,
    conv2: Conv2d,
    bn2: BatchNorm,
    se: Option<SqueezeExcitation>,
    pool: Option<GlobalPoolBias>,
}

impl ResidualBlock {
    fn new(cfg: &NetConfig, device: &Device) -> Self {
        let c = cfg.channels;
        Self {
            conv1: conv3(c, c, device),
            bn1: bn(c, device),
            conv2: conv3(c, c, device),
            bn2: bn(c, device),
            se: (cfg.se_ratio > 0).then(|| SqueezeExcitation::new(c, cfg.se_channels(), device)),
            pool: cfg.global_pool.then(|| GlobalPoolBias::new(c, device)),
        }
    }

    fn forward(&self, x: Tensor<4>) -> Tensor<4> {
        let mut y = relu(self.bn1.forward(self.conv1.forward(x.clone())));
        if let Some(pool) = &self.pool {
            y = pool.forward(y);
        }
        let mut y = self.bn2.forward(self.conv2.forward(y));
        if let Some(se) = &self.se {
            y = se.forward(y);
        }
        relu(y + x)
    }
}

/// The 1×1 projection from policy features to move planes, written as a matrix product so the
/// output comes out square-major (`square * NUM_MOVE_PLANES + plane`) with no transpose of the
/// large output.
#[derive(Module, Debug)]
pub struct MoveProjection {
    /// `[channels, NUM_MOVE_PLANES]`.
    pub(crate) weight: Param<Tensor<2>>,
    /// `[NUM_MOVE_PLANES]`.
    pub(crate) bias: Param<Tensor<1>>,
}

impl MoveProjection {
    fn new(channels: usize, device: &Device) -> Self {
        let init = Initializer::KaimingUniform { gain: 1.0 / 3f64.sqrt(), fan_out_only: false };
        Self {
            weight: init.init_with([channels, NUM_MOVE_PLANES], Some(channels), Some(NUM_MOVE_PLANES), device),
            bias: Initializer::Zeros.init([NUM_MOVE_PLANES], device),
        }
    }

    /// `x`: `[B, C, 16, 16]` → `[B, 256 * NUM_MOVE_PLANES]`.
    fn forward(&self, x: Tensor<4>) -> Tensor<2> {
        let [b, c, _, _] = x.dims();
        // [B, C, 256] → [B·256, C] (small: C channels), times [C, P] → [B·256, P].
        let feats = x.reshape([b, c, SQUARES]).swap_dims(1, 2).reshape([b * SQUARES, c]);
        let out = feats.matmul(self.weight.val()) + self.bias.val().unsqueeze_dim(0);
        out.reshape([b, SQUARES * NUM_MOVE_PLANES])
    }
}

/// The policy head.
#[derive(Module, Debug)]
pub struct PolicyHead {
    conv: Conv2d,
    bn: BatchNorm,
    moves: MoveProjection,
    pass: Linear,
    pool: Option<GlobalPoolBias>,
}

impl PolicyHead {
    fn new(cfg: &NetConfig, device: &Device) -> Self {
        let p = cfg.policy_channels;
        Self {
            conv: conv3(cfg.channels, p, device),
            bn: bn(p, device),
            moves: MoveProjection::new(p, device),
            pass: LinearConfig::new(p, 1).init(device),
            pool: cfg.global_pool.then(|| GlobalPoolBias::new(p, device)),
        }
    }

    /// `(features [B, policy_channels, 16, 16], pass logit [B, 1])`: everything but the 1×1
    /// projection to move planes.
    fn features(&self, x: Tensor<4>) -> (Tensor<4>, Tensor<2>) {
        let mut h = relu(self.bn.forward(self.conv.forward(x)));
        if let Some(pool) = &self.pool {
            h = pool.forward(h);
        }
        let [b, p, _, _] = h.dims();
        let pooled = h.clone().mean_dims(&[2, 3]).reshape([b, p]);
        (h, self.pass.forward(pooled))
    }
}

/// A head with a few outputs: 1×1 conv → BN → ReLU → linear → ReLU → linear.
#[derive(Module, Debug)]
pub struct ScalarHead {
    conv: Conv2d,
    bn: BatchNorm,
    fc1: Linear,
    fc2: Linear,
}

impl ScalarHead {
    fn new(cfg: &NetConfig, outputs: usize, device: &Device) -> Self {
        let v = cfg.value_channels;
        Self {
            conv: conv1(cfg.channels, v, device),
            bn: bn(v, device),
            fc1: LinearConfig::new(v * SQUARES, cfg.value_hidden).init(device),
            fc2: LinearConfig::new(cfg.value_hidden, outputs).init(device),
        }
    }

    fn forward(&self, x: Tensor<4>) -> Tensor<2> {
        let h = relu(self.bn.forward(self.conv.forward(x)));
        let [b, v, _, _] = h.dims();
        let h = relu(self.fc1.forward(h.reshape([b, v * SQUARES])));
        self.fc2.forward(h)
    }
}

/// The network's outputs for a batch of `B` positions.
#[derive(Debug, Clone)]
pub struct NetOutput {
    /// Move logits, `[B, 256 · NUM_MOVE_PLANES]`, square-major (the policy index of every move
    /// but the pass).
    pub moves: Tensor<2>,
    /// Pass logit, `[B, 1]` (policy index `POLICY_SIZE - 1`).
    pub pass: Tensor<2>,
    /// Win/draw/loss logits for the side to move, `[B, 3]`.
    pub wdl: Tensor<2>,
    /// Plies left, `[B, 1]`, when the config has the head.
    pub moves_left: Option<Tensor<2>>,
    /// Final material balance (side to move's view), `[B, 1]`, when the config has the head.
    pub material: Option<Tensor<2>>,
    /// Capture logits, `[B, 256]` in the input's frame (the side to move's view), when the config
    /// has the head.
    pub captures: Option<Tensor<2>>,
}

impl NetOutput {
    /// All `POLICY_SIZE` policy logits, `[B, POLICY_SIZE]` (moves then pass). Copies the move
    /// logits; inference reads `moves` and `pass` separately instead.
    pub fn policy(&self) -> Tensor<2> {
        Tensor::cat(vec![self.moves.clone(), self.pass.clone()], 1)
    }
}

/// The network's outputs without the move logits (see [`Network::forward_heads`]).
#[derive(Debug, Clone)]
pub struct HeadOutput {
    /// Policy head features, `[B, policy_channels, 16, 16]` (after batch norm and ReLU).
    pub policy_features: Tensor<4>,
    /// Pass logit, `[B, 1]`.
    pub pass: Tensor<2>,
    /// Win/draw/loss logits, `[B, 3]`.
    pub wdl: Tensor<2>,
    /// Plies left, `[B, 1]`, when the config has the head.
    pub moves_left: Option<Tensor<2>>,
    /// Final material balance, `[B, 1]`, when the config has the head.
    pub material: Option<Tensor<2>>,
}

/// The policy head's 1×1 projection on the host: one move logit from one square's features.
#[derive(Debug, Clone)]
pub struct MoveWeights {
    channels: usize,
    /// `[NUM_MOVE_PLANES][channels]`.
    weight_t: Vec<f32>,
    /// `[NUM_MOVE_PLANES]`.
    bias: Vec<f32>,
}

impl MoveWeights {
    /// Policy channels (the length of one square's feature vector).
    pub fn channels(&self) -> usize {
        self.channels
    }

    /// The logit of move plane `plane` from one square's features (`channels` values).
    #[inline]
    pub fn logit(&self, square_features: &[f32], plane: usize) -> f32 {
        let w = &self.weight_t[plane * self.channels..(plane + 1) * self.channels];
        let mut acc = [0.0f32; 8];
        let mut wc = w.chunks_exact(8);
        let mut fc = square_features.chunks_exact(8);
        for (a, b) in (&mut wc).zip(&mut fc) {
            for k in 0..8 {
                acc[k] += a[k] * b[k];
            }
        }
        let mut s = self.bias[plane];
        for (a, b) in wc.remainder().iter().zip(fc.remainder()) {
            s += a * b;
        }
        s + acc.iter().sum::<f32>()
    }
}

/// The whole network.
#[derive(Module, Debug)]
pub struct Network {
    input_conv: Conv2d,
    input_bn: BatchNorm,
    blocks: Vec<ResidualBlock>,
    policy: PolicyHead,
    value: ScalarHead,
    moves_left: Option<ScalarHead>,
    material: Option<ScalarHead>,
    /// Last, so that its random weights are drawn after everything else's.
    captures: Option<Conv2d>,
}

impl Network {
    /// A randomly initialised network on `device` (use `device.seed(s)` first for a reproducible
    /// one; [`Network::seeded`] does both).
    pub fn new(cfg: &NetConfig, device: &Device) -> Self {
        Self::with_input_planes(cfg, NUM_PLANES, device)
    }

    /// A randomly initialised network whose input convolution reads `planes` planes: the
    /// shape of a checkpoint from an older encoding ([`crate::encoding::V1_PLANES`]), to load
    /// it and then [`Network::widen_input`] it.
    pub fn with_input_planes(cfg: &NetConfig, planes: usize, device: &Device) -> Self {
        let c = cfg.channels;
        Self {
            input_conv: if cfg.input_kernel == 1 { conv1(planes, c, device) } else { conv3(planes, c, device) },
            input_bn: bn(c, device),
            blocks: (0..cfg.blocks).map(|_| ResidualBlock::new(cfg, device)).collect(),
            policy: PolicyHead::new(cfg, device),
            value: ScalarHead::new(cfg, 3, device),
            moves_left: cfg.moves_left_head.then(|| ScalarHead::new(cfg, 1, device)),
            material: cfg.material_head.then(|| ScalarHead::new(cfg, 1, device)),
            captures: cfg.capture_head.then(|| Conv2dConfig::new([c, 1], [1, 1]).with_bias(true).init(device)),
        }
    }

    /// A randomly initialised network, reproducible from `seed` on the same backend. Every
    /// parameter is materialised here, so the draw order cannot depend on later use.
    ///
    /// Burn keeps one random generator per backend, not per network, so two threads seeding
    /// networks at once would interleave their draws: a process-wide lock makes each seeded
    /// initialisation one uninterrupted sequence.
    pub fn seeded(cfg: &NetConfig, seed: u64, device: &Device) -> Self {
        static SEEDING: std::sync::Mutex<()> = std::sync::Mutex::new(());
        // A panic while holding the lock leaves nothing half-done that the next caller reads.
        let _guard = SEEDING.lock().unwrap_or_else(|e| e.into_inner());
        device.seed(seed);
        let net = Self::new(cfg, device);
        // Parameters initialise lazily; touch them all now, in module order.
        materialise(net)
    }

    /// Forward pass. `input`: `[B, NUM_PLANES, 16, 16]`.
    pub fn forward(&self, input: Tensor<4>) -> NetOutput {
        let x = self.tower(input);
        let captures = self.captures.as_ref().map(|conv| {
            let [b, _, _, _] = x.dims();
            conv.forward(x.clone()).reshape([b, SQUARES])
        });
        let h = self.heads(x);
        NetOutput {
            moves: self.policy.moves.forward(h.policy_features),
            pass: h.pass,
            wdl: h.wdl,
            moves_left: h.moves_left,
            material: h.material,
            captures,
        }
    }

    /// Forward pass up to the policy head's features, without the 1×1 projection to the
    /// `256 × NUM_MOVE_PLANES` move logits: search needs only the legal moves' logits, which
    /// [`MoveWeights::logit`] computes from the features at a fraction of the cost and memory
    /// traffic of the full policy (see [`crate::inference::Inference::evaluate_masked`]).
    pub fn forward_heads(&self, input: Tensor<4>) -> HeadOutput {
        self.heads(self.tower(input))
    }

    /// The input convolution and the residual tower: `[B, channels, 16, 16]`.
    fn tower(&self, input: Tensor<4>) -> Tensor<4> {
        let mut x = relu(self.input_bn.forward(self.input_conv.forward(input)));
        for block in &self.blocks {
            x = block.forward(x);
        }
        x
    }

    /// Every head but the move projection and the capture head, on the tower's output.
    fn heads(&self, x: Tensor<4>) -> HeadOutput {
        let (policy_features, pass) = self.policy.features(x.clone());
        HeadOutput {
            policy_features,
            pass,
            wdl: self.value.forward(x.clone()),
            moves_left: self.moves_left.as_ref().map(|h| h.forward(x.clone())),
            material: self.material.as_ref().map(|h| h.forward(x)),
        }
    }

    /// Input planes the input convolution reads.
    pub fn input_planes(&self) -> usize {
        self.input_conv.weight.dims()[1]
    }

    /// The same network reading [`NUM_PLANES`] planes: the input convolution gains zero
    /// weights for the planes it did not read, so on inputs whose first planes are the old
    /// encoding it computes exactly what it computed before, and training can then learn to
    /// use the new planes. A network that already reads `NUM_PLANES` planes is returned as is.
    pub fn widen_input(mut self) -> Self {
        let w = self.input_conv.weight.val();
        let [out, planes, k1, k2] = w.dims();
        if planes >= NUM_PLANES {
            return self;
        }
        let zeros = Tensor::<4>::zeros([out, NUM_PLANES - planes, k1, k2], &w.device());
        self.input_conv.weight = Param::from_tensor(Tensor::cat(vec![w, zeros], 1));
        self
    }

    /// Whether the network has a material head (`NetConfig::material_head`).
    pub fn has_material_head(&self) -> bool {
        self.material.is_some()
    }

    /// Whether the network has a capture head (`NetConfig::capture_head`).
    pub fn has_capture_head(&self) -> bool {
        self.captures.is_some()
    }

    /// The move projection's weights, copied to the host, for [`MoveWeights::logit`].
    pub fn move_weights(&self) -> MoveWeights {
        let w = self.policy.moves.weight.val();
        let [channels, planes] = w.dims();
        let w = w.into_data().convert::<f32>();
        let w = w.as_slice::<f32>().expect("f32 weights");
        // Transpose to [plane][channel] so one logit is one contiguous dot product.
        let mut weight_t = vec![0.0f32; planes * channels];
        for c in 0..channels {
            for p in 0..planes {
                weight_t[p * channels + c] = w[c * planes + p];
            }
        }
        let bias = self.policy.moves.bias.val().into_data().convert::<f32>().try_to_vec::<f32>().expect("f32 bias");
        MoveWeights { channels, weight_t, bias }
    }

    /// Input tensor from a flat slice of `batch · NUM_PLANES · 256` values.
    pub fn input_tensor(inputs: &[f32], batch: usize, device: &Device) -> Tensor<4> {
        assert_eq!(inputs.len(), batch * NUM_PLANES * SQUARES, "input length must be batch × NUM_PLANES × 256");
        let data = burn::tensor::TensorData::new(inputs.to_vec(), [batch, NUM_PLANES, BOARD, BOARD]);
        Tensor::from_data(data, device)
    }
}

impl Network {
    /// This network with every float parameter (and batch-norm statistic) cast to `dtype`, for
    /// reduced-precision inference ([`crate::inference::Inference::with_precision`]).
    pub fn cast(self, dtype: burn::tensor::FloatDType) -> Network {
        struct Cast(burn::tensor::FloatDType);
        impl burn::module::ModuleMapper for Cast {
            fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
                let (id, tensor, mapper) = param.consume();
                Param::from_mapped_value(id, tensor.cast(self.0), mapper)
            }
        }
        self.map(&mut Cast(dtype))
    }
}

impl Network {
    /// Every float parameter and batch-norm statistic, in module order, as `f32` values with
    /// their shapes (the input of [`Network::with_parameters`]).
    pub fn parameters(&self) -> Vec<(Vec<usize>, Vec<f32>)> {
        struct Collect(Vec<(Vec<usize>, Vec<f32>)>);
        impl burn::module::ModuleVisitor for Collect {
            fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
                let tensor = param.val();
                let shape = tensor.dims().to_vec();
                let values = tensor.into_data().convert::<f32>().try_to_vec::<f32>().expect("f32 parameter");
                self.0.push((shape, values));
            }
        }
        let mut c = Collect(Vec::new());
        self.visit(&mut c);
        c.0
    }

    /// This network with its float parameters and batch-norm statistics replaced, in module
    /// order, by `values` (one flat vector per tensor, as [`Network::parameters`] lists them).
    /// Panics if the count or a length differs: callers build `values` from a network of the
    /// same config.
    pub fn with_parameters(self, values: Vec<Vec<f32>>) -> Network {
        struct Replace(std::vec::IntoIter<Vec<f32>>);
        impl burn::module::ModuleMapper for Replace {
            fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
                let (id, tensor, mapper) = param.consume();
                let values = self.0.next().expect("one value vector per parameter");
                let dims = tensor.dims();
                assert_eq!(values.len(), dims.iter().product::<usize>(), "parameter length");
                let data = burn::tensor::TensorData::new(values, dims);
                let fresh = Tensor::<D>::from_data(data, &tensor.device());
                Param::from_mapped_value(id, fresh, mapper)
            }
        }
        let mut r = Replace(values.into_iter());
        let net = self.map(&mut r);
        assert!(r.0.next().is_none(), "more value vectors than parameters");
        net
    }
}

/// Force every lazily initialised parameter, in module order.
fn materialise(net: Network) -> Network {
    struct Touch;
    impl burn::module::ModuleMapper for Touch {
        fn map_float<const D: usize>(&mut self, param: Param<Tensor<D>>) -> Param<Tensor<D>> {
            let (id, tensor, mapper) = param.consume();
            Param::from_mapped_value(id, tensor, mapper)
        }
    }
    net.map(&mut Touch)
}

/// Total policy outputs (re-exported for callers that only import the network).
pub const POLICY_OUTPUTS: usize = POLICY_SIZE;
