//! Which Burn backend runs the network.
//!
//! Burn 0.22 has no backend type parameter any more: a tensor's [`Device`] says which backend
//! runs it, and autodiff is a property of the device (`device.autodiff()`). So this module hands
//! out devices, and other crates never name a Burn backend:
//!
//! - [`cpu_device`]: the CPU backend chosen by measurement (`flex`, see `BENCHMARKS.md`);
//! - [`default_device`]: a GPU when the crate was built with `wgpu` or `cuda`, else the CPU one;
//! - [`device_by_name`]: any compiled-in backend by name (`flex`, `ndarray`, `wgpu`, `cuda`);
//! - [`training_device`]: the same device with gradients enabled.
//!
//! Cargo features of this crate: `flex` (default; Burn's pure-Rust CPU backend with its SIMD
//! kernels and rayon threads), `ndarray` (the older CPU backend, kept for comparison and the
//! cross-backend test), `wgpu` (Vulkan/Metal/DX12/OpenGL GPUs, WGSL kernels), `vulkan` (a wgpu
//! device pinned to Vulkan, SPIR-V kernels), `cuda` (NVIDIA; building it needs the LLVM that
//! `scripts/cuda-llvm.sh` prepares). The GPU features turn on Burn's autotune and fusion.

pub use burn::tensor::Device;

/// Names of the backends compiled into this build, the default CPU one first.
pub fn available() -> Vec<&'static str> {
    let mut v = Vec::new();
    if cfg!(feature = "flex") {
        v.push("flex");
    }
    if cfg!(feature = "ndarray") {
        v.push("ndarray");
    }
    if cfg!(feature = "wgpu") {
        v.push("wgpu");
    }
    if cfg!(feature = "vulkan") {
        v.push("vulkan");
    }
    if cfg!(feature = "cuda") {
        v.push("cuda");
    }
    v
}

/// The CPU device of the default CPU backend (`flex` when compiled in, else `ndarray`).
pub fn cpu_device() -> Device {
    #[cfg(feature = "flex")]
    {
        Device::flex()
    }
    #[cfg(all(not(feature = "flex"), feature = "ndarray"))]
    {
        #[allow(deprecated)]
        Device::ndarray()
    }
    #[cfg(not(any(feature = "flex", feature = "ndarray")))]
    {
        Device::default()
    }
}

/// The best device of this build: CUDA, then wgpu, then the CPU one.
pub fn default_device() -> Device {
    #[cfg(feature = "cuda")]
    {
        return Device::cuda(0);
    }
    #[cfg(all(not(feature = "cuda"), feature = "wgpu"))]
    {
        return Device::wgpu(Default::default());
    }
    #[allow(unreachable_code)]
    cpu_device()
}

/// A backend name this build does not have.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown or not compiled-in backend '{name}': this build has {}", available().join(", "))]
pub struct BackendError {
    pub name: String,
}

/// A device by backend name; an error names the backends this build has.
pub fn device_by_name(name: &str) -> Result<Device, BackendError> {
    match name {
        #[cfg(feature = "flex")]
        "flex" => Ok(Device::flex()),
        #[cfg(feature = "ndarray")]
        #[allow(deprecated)]
        "ndarray" => Ok(Device::ndarray()),
        #[cfg(feature = "wgpu")]
        "wgpu" => Ok(Device::wgpu(Default::default())),
        #[cfg(feature = "vulkan")]
        "vulkan" => Ok(Device::vulkan(Default::default())),
        #[cfg(feature = "cuda")]
        "cuda" => Ok(Device::cuda(0)),
        "cpu" => Ok(cpu_device()),
        "default" => Ok(default_device()),
        _ => Err(BackendError { name: name.to_string() }),
    }
}

/// `device` with gradients enabled, for training.
pub fn training_device(device: &Device) -> Device {
    device.clone().autodiff()
}

/// Float precision of inference. Training always runs in f32 (on CUDA with autotune, matmul-like
/// kernels may use TF32 tensor cores for it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precision {
    #[default]
    F32,
    Bf16,
    F16,
}

impl Precision {
    /// Every precision, by name.
    pub const ALL: [Precision; 3] = [Precision::F32, Precision::Bf16, Precision::F16];

    /// Its name in specs and configs: `f32`, `bf16`, `f16`.
    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::Bf16 => "bf16",
            Precision::F16 => "f16",
        }
    }

    /// Burn's float type of it.
    pub fn dtype(self) -> burn::tensor::FloatDType {
        match self {
            Precision::F32 => burn::tensor::FloatDType::F32,
            Precision::Bf16 => burn::tensor::FloatDType::BF16,
            Precision::F16 => burn::tensor::FloatDType::F16,
        }
    }

    /// Whether `device` can compute in it (storage, conversion and arithmetic). Vulkan devices,
    /// for one, often store bf16 but cannot compute with it.
    pub fn supported_on(self, device: &Device) -> bool {
        self == Precision::F32 || device.supports_dtype(self.dtype())
    }

    /// Check that `device` (of backend `backend`, for the message) computes in it.
    pub fn check(self, device: &Device, backend: &str) -> Result<(), PrecisionError> {
        if self.supported_on(device) {
            Ok(())
        } else {
            Err(PrecisionError::Unsupported { precision: self.name(), backend: backend.to_string() })
        }
    }
}

impl std::fmt::Display for Precision {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Precision {
    type Err = PrecisionError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Precision::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| PrecisionError::Unknown { name: s.to_string() })
    }
}

/// A precision that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PrecisionError {
    #[error("unknown precision '{name}': expected f32, bf16 or f16")]
    Unknown { name: String },
    #[error("the {backend} device cannot compute in {precision}: use f32 (or another backend)")]
    Unsupported { precision: &'static str, backend: String },
    #[error(
        "precision {to} asked of an evaluator already computing in {from}: set it once, before the first evaluation"
    )]
    AlreadySet { from: &'static str, to: &'static str },
}
