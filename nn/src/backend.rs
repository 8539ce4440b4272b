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
//! cross-backend test), `wgpu` (Vulkan/Metal/DX12 GPUs), `cuda` (NVIDIA; its build script
//! downloads LLVM, so it needs internet access at build time).

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
