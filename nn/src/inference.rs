//! Batched inference: many positions in, policy logits (or priors over the legal moves) and
//! win/draw/loss probabilities out.
//!
//! An [`Inference`] owns the network (in inference mode: batch norm uses its running statistics,
//! no autodiff) and the output buffers; each call reuses them, so the only allocations per call
//! are the backend's own per-batch tensors, never one per position.
//!
//! ```no_run
//! # use nn::{backend, inference::Inference, network::{NetConfig, Network}};
//! # use nn::{encoding::NUM_PLANES, policy::POLICY_SIZE};
//! let device = backend::cpu_device();
//! let cfg = NetConfig::load("configs/net-tiny.toml").unwrap();
//! let mut eval = Inference::new(Network::seeded(&cfg, 1, &device), &device);
//! let inputs = vec![0.0f32; 4 * NUM_PLANES * 256];
//! // All logits (172k per position): analysis, tests.
//! let out = eval.evaluate(&inputs, 4);
//! assert_eq!(out.policy_logits.len(), 4 * POLICY_SIZE);
//! let [win, draw, loss] = out.wdl[0];
//! // Priors over the legal moves only (search): indices from `policy::legal_indices`.
//! let legal = vec![0usize, 17, 4000, 5, 6];
//! let offsets = [0usize, 2, 3, 4, 5]; // position i's moves: legal[offsets[i]..offsets[i + 1]]
//! let out = eval.evaluate_masked(&inputs, 4, &legal, &offsets);
//! assert_eq!(out.priors.len(), legal.len());
//! # let _ = (win, draw, loss);
//! ```

use burn::module::Module;
use burn::tensor::{Device, FloatDType, Tensor};

use crate::backend::{Precision, PrecisionError};
use crate::encoding::NUM_PLANES;
use crate::network::{MoveWeights, Network, SQUARES};
use crate::policy::{mask_and_softmax, NO_INDEX, NULL_PASS_INDEX, NUM_MOVE_PLANES, POLICY_SIZE};

/// Raw outputs of one [`Inference::evaluate`] call (views into the evaluator's buffers).
#[derive(Debug)]
pub struct Outputs<'a> {
    /// `batch × POLICY_SIZE` policy logits, position after position.
    pub policy_logits: &'a [f32],
    /// Win/draw/loss probabilities for the side to move, one per position.
    pub wdl: &'a [[f32; 3]],
    /// Predicted plies left, one per position (empty when the network has no such head).
    pub moves_left: &'a [f32],
    /// Predicted final material balance, one per position (empty when no such head).
    pub material: &'a [f32],
}

/// Outputs of one [`Inference::evaluate_masked`] call.
#[derive(Debug)]
pub struct MaskedOutputs<'a> {
    /// Prior of every legal move, aligned with the `legal` slice given (each position's priors
    /// sum to 1).
    pub priors: &'a [f32],
    /// Win/draw/loss probabilities for the side to move, one per position.
    pub wdl: &'a [[f32; 3]],
    /// Predicted plies left (empty when no such head).
    pub moves_left: &'a [f32],
    /// Predicted final material balance (empty when no such head).
    pub material: &'a [f32],
}

/// Batched evaluation with reused buffers.
pub struct Inference {
    net: Network,
    device: Device,
    precision: Precision,
    policy: Vec<f32>,
    wdl: Vec<[f32; 3]>,
    moves_left: Vec<f32>,
    material: Vec<f32>,
    priors: Vec<f32>,
    moves: MoveWeights,
    square_feats: Vec<f32>,
    gathered: Vec<f32>,
    local: Vec<usize>,
}

impl Inference {
    /// An evaluator running `net` on `device` (the network is moved there and put in inference
    /// mode; the device's autodiff flag is dropped).
    pub fn new(net: Network, device: &Device) -> Self {
        Self::with_precision(net, device, Precision::F32).expect("every device computes in f32")
    }

    /// An evaluator computing in `precision`: the network's weights are cast to it and each
    /// batch's inputs too; the outputs come back as f32. The move projection of
    /// [`Inference::evaluate_masked`] (host dot products) stays f32. `Err` when the device cannot
    /// compute in it.
    pub fn with_precision(net: Network, device: &Device, precision: Precision) -> Result<Self, PrecisionError> {
        let device = device.clone().without_autodiff();
        precision.check(&device, &format!("{device:?}"))?;
        let net = net.valid().to_device(&device);
        let moves = net.move_weights();
        let net = if precision == Precision::F32 { net } else { net.cast(precision.dtype()) };
        Ok(Self {
            net,
            device,
            precision,
            policy: Vec::new(),
            wdl: Vec::new(),
            moves_left: Vec::new(),
            material: Vec::new(),
            priors: Vec::new(),
            moves,
            square_feats: Vec::new(),
            gathered: Vec::new(),
            local: Vec::new(),
        })
    }

    /// The precision it computes in.
    pub fn precision(&self) -> Precision {
        self.precision
    }

    fn input(&self, inputs: &[f32], batch: usize) -> Tensor<4> {
        let x = Network::input_tensor(inputs, batch, &self.device);
        if self.precision == Precision::F32 {
            x
        } else {
            x.cast(self.precision.dtype())
        }
    }

    /// The device it runs on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The network.
    pub fn network(&self) -> &Network {
        &self.net
    }

    /// Evaluate `batch` positions. `inputs` holds `batch × NUM_PLANES × 256` plane values
    /// (position after position, as [`crate::encoding`] writes them).
    ///
    /// # Panics
    /// If `inputs.len()` is not `batch × NUM_PLANES × 256`.
    pub fn evaluate(&mut self, inputs: &[f32], batch: usize) -> Outputs<'_> {
        self.run(inputs, batch);
        Outputs { policy_logits: &self.policy, wdl: &self.wdl, moves_left: &self.moves_left, material: &self.material }
    }

    /// Evaluate `batch` positions and turn the policy into priors over the legal moves.
    ///
    /// `legal` holds the policy indices of every position's legal moves, one position after
    /// another, as [`crate::policy::legal_indices`] writes them ([`NO_INDEX`] for a move outside
    /// the index, which gets prior 0); position `i`'s are `legal[offsets[i]..offsets[i + 1]]`
    /// (`offsets.len() == batch + 1`). The priors come back in the same order, through
    /// [`crate::policy::mask_and_softmax`].
    ///
    /// Only the legal moves' logits are computed: the network runs up to the policy features
    /// ([`Network::forward_heads`]) and each legal logit is one dot product on the host
    /// ([`MoveWeights::logit`]), instead of materialising all `POLICY_SIZE` logits per position.
    /// The logits equal [`Inference::evaluate`]'s up to float rounding (~1e-6).
    ///
    /// # Panics
    /// On a bad input length, bad offsets, or a policy index `>= POLICY_SIZE` (other than
    /// [`NO_INDEX`]).
    pub fn evaluate_masked(
        &mut self,
        inputs: &[f32],
        batch: usize,
        legal: &[usize],
        offsets: &[usize],
    ) -> MaskedOutputs<'_> {
        assert_eq!(offsets.len(), batch + 1, "offsets must have batch + 1 entries");
        assert_eq!(offsets[batch], legal.len(), "offsets must end at legal.len()");
        self.check_inputs(inputs, batch);
        self.clear();
        self.priors.clear();
        self.priors.resize(legal.len(), 0.0);
        if batch == 0 {
            return self.masked_outputs();
        }
        let x = self.input(inputs, batch);
        let out = self.net.forward_heads(x);
        let feats = out.policy_features.cast(FloatDType::F32).into_data();
        let feats = feats.as_slice::<f32>().expect("f32 output");
        let pass = out.pass.cast(FloatDType::F32).into_data();
        let pass = pass.as_slice::<f32>().expect("f32 output");
        self.read_value_heads(out.wdl, out.moves_left, out.material);

        let c = self.moves.channels();
        for i in 0..batch {
            // Features of position i, [C][256] → [256][C].
            let f = &feats[i * c * SQUARES..(i + 1) * c * SQUARES];
            self.square_feats.resize(SQUARES * c, 0.0);
            for ch in 0..c {
                for sq in 0..SQUARES {
                    self.square_feats[sq * c + ch] = f[ch * SQUARES + sq];
                }
            }
            let (a, b) = (offsets[i], offsets[i + 1]);
            self.gathered.clear();
            self.local.clear();
            for (k, &idx) in legal[a..b].iter().enumerate() {
                let logit = if idx == NO_INDEX {
                    0.0
                } else if idx == NULL_PASS_INDEX {
                    pass[i]
                } else {
                    assert!(idx < NULL_PASS_INDEX, "policy index {idx} out of range");
                    let (sq, plane) = (idx / NUM_MOVE_PLANES, idx % NUM_MOVE_PLANES);
                    self.moves.logit(&self.square_feats[sq * c..(sq + 1) * c], plane)
                };
                self.gathered.push(logit);
                self.local.push(if idx == NO_INDEX { NO_INDEX } else { k });
            }
            mask_and_softmax(&self.gathered, &self.local, &mut self.priors[a..b]);
        }
        self.masked_outputs()
    }

    fn masked_outputs(&self) -> MaskedOutputs<'_> {
        MaskedOutputs { priors: &self.priors, wdl: &self.wdl, moves_left: &self.moves_left, material: &self.material }
    }

    fn check_inputs(&self, inputs: &[f32], batch: usize) {
        assert_eq!(inputs.len(), batch * NUM_PLANES * SQUARES, "inputs must hold batch × NUM_PLANES × 256 values");
    }

    fn clear(&mut self) {
        self.policy.clear();
        self.wdl.clear();
        self.moves_left.clear();
        self.material.clear();
    }

    fn read_value_heads(&mut self, wdl: Tensor<2>, moves_left: Option<Tensor<2>>, material: Option<Tensor<2>>) {
        let wdl = read(wdl);
        let wdl = wdl.as_slice::<f32>().expect("f32 output");
        self.wdl.extend(wdl.chunks_exact(3).map(|l| softmax3([l[0], l[1], l[2]])));
        if let Some(t) = moves_left {
            self.moves_left.extend_from_slice(read(t).as_slice::<f32>().expect("f32 output"));
        }
        if let Some(t) = material {
            self.material.extend_from_slice(read(t).as_slice::<f32>().expect("f32 output"));
        }
    }

    fn run(&mut self, inputs: &[f32], batch: usize) {
        self.check_inputs(inputs, batch);
        self.clear();
        if batch == 0 {
            return;
        }
        let x = self.input(inputs, batch);
        let out = self.net.forward(x);

        let moves_per_pos = POLICY_SIZE - 1;
        self.policy.resize(batch * POLICY_SIZE, 0.0);
        let moves = read(out.moves);
        let pass = read(out.pass);
        let moves = moves.as_slice::<f32>().expect("f32 output");
        let pass = pass.as_slice::<f32>().expect("f32 output");
        for i in 0..batch {
            let row = &mut self.policy[i * POLICY_SIZE..(i + 1) * POLICY_SIZE];
            row[..moves_per_pos].copy_from_slice(&moves[i * moves_per_pos..(i + 1) * moves_per_pos]);
            row[moves_per_pos] = pass[i];
        }
        self.read_value_heads(out.wdl, out.moves_left, out.material);
    }
}

/// A 2-D output as f32 data (a no-op cast at f32).
fn read(t: Tensor<2>) -> burn::tensor::TensorData {
    t.cast(FloatDType::F32).into_data()
}

/// Softmax of three logits.
pub fn softmax3(l: [f32; 3]) -> [f32; 3] {
    let m = l[0].max(l[1]).max(l[2]);
    let e = [(l[0] - m).exp(), (l[1] - m).exp(), (l[2] - m).exp()];
    let s = e[0] + e[1] + e[2];
    [e[0] / s, e[1] / s, e[2] / s]
}
