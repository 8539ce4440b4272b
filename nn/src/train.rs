//! One training step: forward, losses, backward, optimizer (AdamW).
//!
//! Losses, each averaged over the batch:
//! - policy: cross-entropy between the target distribution (e.g. search visit shares) and the
//!   softmax of all `POLICY_SIZE` logits (illegal moves are not masked: their targets are 0, so the
//!   network learns to push them down);
//! - value: cross-entropy between the target W/D/L distribution and the WDL softmax;
//! - moves-left (if the head is on): Huber loss (δ = 1) between the output and plies left / 100;
//! - material (if the head is on): squared error between the output and the target balance (in
//!   whatever units the caller chooses; keep them near ±10);
//! - captures (if the head is on and the batch has its targets): binary cross-entropy of each
//!   occupied square's logit against whether its piece is taken, averaged over the occupied
//!   squares of the batch.
//!
//! `total = policy + value_weight·value + moves_left_weight·moves_left + material_weight·material
//! + capture_weight·captures`.

use burn::module::Module;
use burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer};
use burn::tensor::activation::log_softmax;
use burn::tensor::{Device, Tensor, TensorData};

use crate::network::{NetOutput, Network, SQUARES};
use crate::policy::POLICY_SIZE;

/// Plies-left targets are divided by this before the loss (the head predicts plies / 100).
pub const MOVES_LEFT_SCALE: f32 = 100.0;

/// Optimiser and loss weights.
#[derive(Clone, Debug, PartialEq)]
pub struct TrainConfig {
    /// Learning rate.
    pub lr: f64,
    /// AdamW decoupled weight decay.
    pub weight_decay: f32,
    /// Weight of the value loss.
    pub value_weight: f32,
    /// Weight of the moves-left loss (ignored without the head).
    pub moves_left_weight: f32,
    /// Weight of the material loss (ignored without the head).
    pub material_weight: f32,
    /// Weight of the capture loss (ignored without the head).
    pub capture_weight: f32,
}

impl Default for TrainConfig {
    fn default() -> Self {
        Self {
            lr: 1e-3,
            weight_decay: 1e-4,
            value_weight: 1.0,
            moves_left_weight: 0.1,
            material_weight: 0.1,
            capture_weight: 1.0,
        }
    }
}

/// A batch of training targets. Policy targets are sparse: position `i`'s are
/// `(policy_indices[k], policy_probs[k])` for `k` in `policy_offsets[i]..policy_offsets[i + 1]`.
#[derive(Clone, Copy, Debug)]
pub struct TrainBatch<'a> {
    /// Positions in the batch.
    pub size: usize,
    /// `size × NUM_PLANES × 256` input planes.
    pub inputs: &'a [f32],
    /// Policy indices with non-zero target probability.
    pub policy_indices: &'a [u32],
    /// Their probabilities (each position's should sum to 1).
    pub policy_probs: &'a [f32],
    /// `size + 1` offsets into the two slices above.
    pub policy_offsets: &'a [usize],
    /// Target W/D/L distribution for the side to move.
    pub wdl: &'a [[f32; 3]],
    /// Plies left to the end of the game, one per position; empty to train without this loss
    /// (ignored when the network has no moves-left head).
    pub moves_left: &'a [f32],
    /// Final material balance for the side to move, one per position; empty to train without
    /// this loss (ignored when the network has no material head).
    pub material: &'a [f32],
    /// Capture targets, `size × 256` in the input's frame: 1 where the piece on the square is
    /// taken, 0 where it is not; empty to train without this loss (ignored when the network has
    /// no capture head).
    pub captures: &'a [f32],
    /// Which squares of `captures` count (1: occupied, 0: empty), `size × 256`.
    pub capture_mask: &'a [f32],
}

/// Loss values of one step (before the optimiser update).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Losses {
    /// Policy cross-entropy.
    pub policy: f32,
    /// Value cross-entropy.
    pub value: f32,
    /// Moves-left Huber loss (0 without the head).
    pub moves_left: f32,
    /// Material squared error (0 without the head).
    pub material: f32,
    /// Capture binary cross-entropy per occupied square (0 without the head or its targets).
    pub captures: f32,
    /// Weighted sum.
    pub total: f32,
}

/// The network being trained, with its optimiser state.
pub struct Trainer {
    net: Option<Network>,
    optim: ModuleOptimizer,
    device: Device,
    cfg: TrainConfig,
    steps: u64,
}

/// Optimiser state bytes that do not load (Burn's reason, on one line).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad optimizer state: {0}")]
pub struct OptimizerStateError(pub String);

impl Trainer {
    /// Train `net` on `device` (autodiff is enabled on it here).
    pub fn new(net: Network, device: &Device, cfg: TrainConfig) -> Self {
        let device = device.clone().autodiff();
        let net = net.fork(&device).train();
        let optim = AdamWConfig::new().with_weight_decay(cfg.weight_decay).init();
        Self { net: Some(net), optim, device, cfg, steps: 0 }
    }

    /// Restore the optimiser state saved by [`Trainer::optimizer_state`] (in a checkpoint).
    pub fn load_optimizer_state(&mut self, bytes: &[u8]) -> Result<(), OptimizerStateError> {
        self.optim = self
            .optim
            .clone()
            .from_bytes(burn::tensor::Bytes::from_bytes_vec(bytes.to_vec()))
            .map_err(|e| OptimizerStateError(e.to_string().split_whitespace().collect::<Vec<_>>().join(" ")))?;
        Ok(())
    }

    /// The optimiser state as bytes (burnpack), for a checkpoint.
    pub fn optimizer_state(&self) -> Vec<u8> {
        self.optim.into_bytes().expect("optimizer state serialises").to_vec()
    }

    /// Steps taken by this trainer.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// The trained network (a copy, in inference mode, on the plain device).
    pub fn network(&self) -> Network {
        self.net().valid()
    }

    fn net(&self) -> &Network {
        self.net.as_ref().expect("network present between steps")
    }

    /// One optimiser step on `batch`; returns the losses before the update.
    pub fn step(&mut self, batch: &TrainBatch) -> Losses {
        let net = self.net.take().expect("network present between steps");
        let (loss, losses) = compute_losses(&net, batch, &self.cfg, &self.device);
        let grads = loss.backward();
        let grads = GradientsParams::from_grads(grads, &net);
        let net = self.optim.step(self.cfg.lr, net, grads);
        self.net = Some(net);
        self.steps += 1;
        losses
    }
}

/// The losses of `net` on `batch` (training-mode batch norm when `device` has autodiff). Returns
/// the total as a tensor (for `backward`) and every loss as numbers.
pub fn compute_losses(net: &Network, batch: &TrainBatch, cfg: &TrainConfig, device: &Device) -> (Tensor<1>, Losses) {
    let b = batch.size;
    assert_eq!(batch.policy_offsets.len(), b + 1, "policy_offsets must have size + 1 entries");
    assert_eq!(batch.policy_indices.len(), batch.policy_probs.len());
    assert_eq!(batch.wdl.len(), b, "one WDL target per position");

    let out: NetOutput = net.forward(Network::input_tensor(batch.inputs, b, device));

    // Dense policy target.
    let mut target = vec![0.0f32; b * POLICY_SIZE];
    for i in 0..b {
        let row = &mut target[i * POLICY_SIZE..(i + 1) * POLICY_SIZE];
        for k in batch.policy_offsets[i]..batch.policy_offsets[i + 1] {
            row[batch.policy_indices[k] as usize] += batch.policy_probs[k];
        }
    }
    let target: Tensor<2> = Tensor::from_data(TensorData::new(target, [b, POLICY_SIZE]), device);
    let policy_loss = cross_entropy(out.policy(), target);

    let wdl_target: Vec<f32> = batch.wdl.iter().flatten().copied().collect();
    let wdl_target: Tensor<2> = Tensor::from_data(TensorData::new(wdl_target, [b, 3]), device);
    let value_loss = cross_entropy(out.wdl, wdl_target);

    let mut total = policy_loss.clone() + value_loss.clone().mul_scalar(cfg.value_weight);
    let mut losses = Losses::default();

    let mut ml_loss = None;
    if let Some(pred) = out.moves_left.filter(|_| !batch.moves_left.is_empty()) {
        assert_eq!(batch.moves_left.len(), b, "one moves-left target per position");
        let t: Vec<f32> = batch.moves_left.iter().map(|m| m / MOVES_LEFT_SCALE).collect();
        let t: Tensor<2> = Tensor::from_data(TensorData::new(t, [b, 1]), device);
        let l = huber(pred, t);
        total = total + l.clone().mul_scalar(cfg.moves_left_weight);
        ml_loss = Some(l);
    }
    let mut mat_loss = None;
    if let Some(pred) = out.material.filter(|_| !batch.material.is_empty()) {
        assert_eq!(batch.material.len(), b, "one material target per position");
        let t: Tensor<2> = Tensor::from_data(TensorData::new(batch.material.to_vec(), [b, 1]), device);
        let d = pred - t;
        let l = (d.clone() * d).mean();
        total = total + l.clone().mul_scalar(cfg.material_weight);
        mat_loss = Some(l);
    }

    let mut cap_loss = None;
    if let Some(logits) = out.captures.filter(|_| !batch.captures.is_empty()) {
        assert_eq!(batch.captures.len(), b * SQUARES, "256 capture targets per position");
        assert_eq!(batch.capture_mask.len(), b * SQUARES, "256 capture mask values per position");
        let occupied = batch.capture_mask.iter().sum::<f32>().max(1.0);
        let t: Tensor<2> = Tensor::from_data(TensorData::new(batch.captures.to_vec(), [b, SQUARES]), device);
        let m: Tensor<2> = Tensor::from_data(TensorData::new(batch.capture_mask.to_vec(), [b, SQUARES]), device);
        let l = (binary_cross_entropy_with_logits(logits, t) * m).sum().div_scalar(occupied);
        total = total + l.clone().mul_scalar(cfg.capture_weight);
        cap_loss = Some(l);
    }

    losses.policy = scalar(&policy_loss);
    losses.value = scalar(&value_loss);
    losses.moves_left = ml_loss.as_ref().map_or(0.0, scalar);
    losses.material = mat_loss.as_ref().map_or(0.0, scalar);
    losses.captures = cap_loss.as_ref().map_or(0.0, scalar);
    losses.total = scalar(&total);
    (total, losses)
}

/// Mean over the batch of `-Σ target · log_softmax(logits)`.
fn cross_entropy(logits: Tensor<2>, target: Tensor<2>) -> Tensor<1> {
    (log_softmax(logits, 1) * target).sum_dim(1).mean().neg()
}

/// Element-wise `−t·log σ(x) − (1 − t)·log(1 − σ(x))`, in the form that cannot overflow:
/// `max(x, 0) − x·t + log(1 + e^{−|x|})`.
fn binary_cross_entropy_with_logits(x: Tensor<2>, t: Tensor<2>) -> Tensor<2> {
    x.clone().clamp_min(0.0) - x.clone() * t + x.abs().neg().exp().log1p()
}

/// Mean Huber loss with δ = 1.
fn huber(pred: Tensor<2>, target: Tensor<2>) -> Tensor<1> {
    let d = (pred - target).abs();
    let quad = d.clone().clamp_max(1.0);
    let lin = d - quad.clone();
    (quad.clone() * quad * 0.5 + lin).mean()
}

fn scalar(t: &Tensor<1>) -> f32 {
    t.clone().into_data().convert::<f32>().as_slice::<f32>().expect("f32")[0]
}
