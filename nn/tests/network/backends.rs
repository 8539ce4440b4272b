//! The shipped network on other backends and precisions against `flex` in f32
//! (`nn::agreement`): bf16 and f16 on `flex` within their stated tolerances; with the `wgpu`
//! feature, the wgpu (and `vulkan`) device with autotune and fusion within 1e-4, on whatever
//! adapter the machine has. Without an adapter the GPU test says so on stderr and in its output
//! instead of passing silently.
//!
//! On a machine without a GPU:
//! `VK_ICD_FILENAMES=/nonexistent cargo test --release -p tenjiku-nn --features vulkan --test
//! network backends -- --nocapture` runs the wgpu device on Mesa's llvmpipe (OpenGL through EGL;
//! measured max difference 3.6e-6) and reports the vulkan device SKIPPED. Debian 12's lavapipe
//! (Mesa 22.3.6) crashes (SIGSEGV in `vkCreateComputePipelines`) on these kernels, so hide it
//! as above rather than let wgpu pick it.

use engine::{MoveTable, Rules};
use nn::agreement::{compare, corpus, Agreement};
use nn::backend::{self, Precision, PrecisionError};
use nn::evaluator::NetEvaluator;

const SHIPPED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../checkpoints/tenjiku-cpu.ckpt");

fn evaluator(device: &backend::Device, precision: Precision) -> NetEvaluator {
    let ckpt = nn::checkpoint::load(SHIPPED, device).expect("the shipped checkpoint loads");
    let mut e = NetEvaluator::new(ckpt.network, device);
    e.set_precision(precision).expect("precision supported");
    e
}

/// `precision` on `device` against flex f32 over `n` corpus positions.
fn against_flex(device: &backend::Device, precision: Precision, n: usize) -> Agreement {
    let table = MoveTable::new(&Rules::standard());
    let positions = corpus(&table, 7, n, 120);
    let mut reference = evaluator(&backend::cpu_device(), Precision::F32);
    let mut other = evaluator(device, precision);
    compare(&mut reference, &mut other, &table, &positions, 64)
}

#[test]
fn corpus_is_seeded_and_the_same_evaluator_agrees_exactly() {
    let table = MoveTable::new(&Rules::standard());
    let a = corpus(&table, 3, 50, 120);
    let b = corpus(&table, 3, 50, 120);
    assert_eq!(a.len(), 50);
    assert!(a.iter().zip(&b).all(|(x, y)| x.position == y.position && x.ply == y.ply));
    assert!(a.iter().any(|x| x.ply > 10), "the corpus goes beyond the opening");
    let ag = against_flex(&backend::cpu_device(), Precision::F32, 64);
    assert_eq!((ag.positions, ag.top1_same), (64, 64));
    assert!(ag.max_diff() < 1e-5, "{ag:?}");
}

/// Reduced precision on the CPU: bf16 keeps 8 bits of mantissa, f16 11, so the network's outputs
/// move by about 1e-2 and 1e-3; the tolerances below are what the shipped network must stay
/// within (measured: BENCHMARKS.md "Reduced precision").
#[test]
fn bf16_and_f16_stay_close_to_f32_on_flex() {
    for (p, top1, max_value, mean_value) in [(Precision::Bf16, 0.95, 0.15, 0.02), (Precision::F16, 0.98, 0.03, 0.004)] {
        let ag = against_flex(&backend::cpu_device(), p, 256);
        eprintln!("flex {p}: {ag:?}");
        assert!(ag.top1_agreement() >= top1, "{p}: top-1 agreement {:.3}", ag.top1_agreement());
        assert!(ag.max_value_diff <= max_value, "{p}: max value difference {}", ag.max_value_diff);
        assert!(ag.mean_value_diff <= mean_value, "{p}: mean value difference {}", ag.mean_value_diff);
    }
}

#[test]
fn precision_names_and_errors() {
    assert_eq!("bf16".parse::<Precision>().unwrap(), Precision::Bf16);
    assert_eq!(Precision::F16.to_string(), "f16");
    let e = "fp8".parse::<Precision>().unwrap_err().to_string();
    assert_eq!(e, "unknown precision 'fp8': expected f32, bf16 or f16");
    let mut e = evaluator(&backend::cpu_device(), Precision::Bf16);
    assert!(e.set_precision(Precision::Bf16).is_ok(), "setting the same precision again is a no-op");
    assert_eq!(e.set_precision(Precision::F32).unwrap_err(), PrecisionError::AlreadySet { from: "bf16", to: "f32" });
}

/// With the `wgpu` feature: the GPU devices (autotune and fusion on) against flex, 1e-4.
#[cfg(feature = "wgpu")]
#[test]
fn gpu_backends_match_flex() {
    let mut names = vec!["wgpu"];
    if cfg!(feature = "vulkan") {
        names.push("vulkan");
    }
    for name in names {
        let device = backend::device_by_name(name).unwrap();
        // No adapter (no GPU, no software renderer): wgpu panics at the first use.
        let probe = std::panic::catch_unwind(|| {
            let d = device.clone();
            let t = burn::tensor::Tensor::<1>::from_floats([1.0, 2.0], &d);
            t.sum().into_scalar::<f32>()
        });
        match probe {
            Ok(x) if x == 3.0 => {}
            Ok(x) => panic!("{name}: 1 + 2 gave {x}"),
            Err(_) => {
                let msg = format!("SKIPPED gpu_backends_match_flex on {name}: no adapter on this machine");
                eprintln!("{msg}");
                println!("{msg}");
                continue;
            }
        }
        let ag = against_flex(&device, Precision::F32, 64);
        eprintln!("{name} f32: {ag:?}");
        assert_eq!(ag.top1_same, ag.positions, "{name}: {ag:?}");
        assert!(ag.max_diff() <= 1e-4, "{name}: outputs differ from flex by {} ({ag:?})", ag.max_diff());
    }
}
