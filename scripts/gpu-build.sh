#!/usr/bin/env bash
# Build, on this (CPU) machine, what scripts/gpu-check.sh runs on a GPU machine that has nothing
# to build with, and pack it into .devbin/ (git-ignored; the device call carries it):
#
#   scripts/gpu-build.sh            then, on the GPU machine:  scripts/gpu-check.sh
#
# - .devbin/tenjiku.xz     the command line with the vulkan (wgpu + SPIR-V) and cuda backends;
# - .devbin/net_bench.xz   the network benchmark with the same backends;
# - .devbin/cuda/nvvm/libdevice/libdevice.10.bc   CUDA's math library for NVRTC, from PyPI's
#   nvidia-nvvm wheel (gpu-check.sh uses it when the machine has none).
# Binaries are stripped and xz-compressed (a device call carries at most 64 MiB). The cuda build
# uses the LLVM that scripts/cuda-llvm.sh prepares. GPU_BUILD_FEATURES overrides the features
# (default "vulkan,cuda"; "vulkan" alone when LLVM cannot be had).
set -euo pipefail
cd "$(dirname "$0")/.."
features=${GPU_BUILD_FEATURES:-vulkan,cuda}
case ",$features," in
*,cuda,*)
    scripts/cuda-llvm.sh
    export CUDARC_CUDA_VERSION=${CUDARC_CUDA_VERSION:-13000}
    ;;
esac
# The usual release profile (so the GPU test's and CI's builds share the compiled crates); the
# copies are stripped of their debug information before they are compressed.
target=${CARGO_TARGET_DIR:-target}
echo "building tenjiku and net_bench with --features $features into $target"
cargo build --release --features "$features" --bin tenjiku
cargo build --release -p tenjiku-nn --features "bench,$features" --example net_bench
mkdir -p .devbin
for b in tenjiku examples/net_bench; do
    name=$(basename $b)
    strip -o ".devbin/$name.stripped" "$target/release/$b"
    xz -T0 -6 -c ".devbin/$name.stripped" > ".devbin/$name.xz.tmp"
    mv ".devbin/$name.xz.tmp" ".devbin/$name.xz"
    rm ".devbin/$name.stripped"
done
echo "$features" > .devbin/features
# libdevice.10.bc from the nvidia-nvvm wheel (a zip), cached.
lib=.devbin/cuda/nvvm/libdevice/libdevice.10.bc
if [ ! -f "$lib" ]; then
    cache=${TENJIKU_NVVM_CACHE:-$HOME/.cache/tenjiku-nvvm}
    mkdir -p "$cache"
    ls "$cache"/nvidia_nvvm-*.whl >/dev/null 2>&1 ||
        python3 -m pip download -q --no-deps --only-binary=:all: --platform manylinux_2_27_x86_64 \
            --python-version 3.11 -d "$cache" nvidia-nvvm || true
    whl=$(ls "$cache"/nvidia_nvvm-*.whl 2>/dev/null | tail -1)
    if [ -n "$whl" ]; then
        mkdir -p "$(dirname "$lib")"
        python3 - "$whl" "$lib" <<'EOF'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
name = next(n for n in z.namelist() if n.endswith("libdevice/libdevice.10.bc"))
open(sys.argv[2], "wb").write(z.read(name))
print(f"libdevice.10.bc from {sys.argv[1]} ({name})")
EOF
    else
        echo "WARNING: no nvidia-nvvm wheel: gpu-check.sh will rely on the GPU machine's own libdevice.10.bc"
    fi
fi
du -ch .devbin/* .devbin/cuda/nvvm/libdevice/* 2>/dev/null | tail -8
total=$(du -sb .devbin | cut -f1)
[ "$total" -lt $((60 << 20)) ] || echo "WARNING: .devbin is $((total >> 20)) MiB; a device call carries at most 64 MiB in all"
echo "carry: .devbin (run: scripts/gpu-check.sh)"
