#!/usr/bin/env bash
# One GPU check in one call (the device machine is lent for minutes, with nothing to build with):
# the wgpu network benchmark, MCTS with the network on the GPU, and a short `configs/gpu.toml`
# training run (smaller warm-up so training starts within the call) that is interrupted and
# resumed. Binaries are built beforehand on the CPU machine and carried in .devbin/:
#
#   CARGO_TARGET_DIR=target-gpu CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_PROFILE_RELEASE_STRIP=true \
#     cargo build --release --features wgpu --bin tenjiku
#   CARGO_TARGET_DIR=target-gpu CARGO_PROFILE_RELEASE_DEBUG=0 CARGO_PROFILE_RELEASE_STRIP=true \
#     cargo build --release -p tenjiku-nn --features bench,wgpu --example net_bench
#   mkdir -p .devbin && for b in tenjiku examples/net_bench; do
#       xz -c target-gpu/release/$b > .devbin/$(basename $b).xz; done
#
# (xz: the two binaries are ~60 MB each, over what a device call carries.)
# The Vulkan loader comes as .deb files in .gl/ (see the device tool's README). Results go to
# $OUT (or ./gpu-out): net_bench.md, mcts.md, train.log, metrics.csv, gpu-check.log.
# Each step has its own time limit, so one that fails or hangs leaves the rest to run.
# Settings (environment): GPU_CHECK_BENCH_CONFIGS (network configs for net_bench, space-separated),
# GPU_CHECK_BATCHES, GPU_CHECK_SECONDS, GPU_CHECK_MCTS=0 (skip the MCTS bench),
# GPU_CHECK_NETWORK (the loop's network instead of gpu.toml's), GPU_CHECK_TRAIN_MINUTES.
set -u
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/gpu-check.log") 2>&1
T0=$(date +%s)
stamp() { echo "== $(( $(date +%s) - T0 )) s: $*"; }

if ls .gl/*.deb >/dev/null 2>&1; then
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && export VK_DRIVER_FILES=$icd
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
nproc

mkdir -p /tmp/devbin
for b in tenjiku net_bench; do
    [ -f .devbin/$b.xz ] || continue
    xz -dc .devbin/$b.xz > /tmp/devbin/$b 2>/dev/null ||
        python3 -c "import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())" \
            .devbin/$b.xz > /tmp/devbin/$b
    chmod +x /tmp/devbin/$b
done
B=/tmp/devbin/tenjiku
NB=/tmp/devbin/net_bench
SECS=${GPU_CHECK_SECONDS:-2}
TRAIN_MIN=${GPU_CHECK_TRAIN_MINUTES:-2}

stamp "net_bench (wgpu)"
cfgs=()
for c in ${GPU_CHECK_BENCH_CONFIGS:-configs/net-cpu.toml configs/net-gpu.toml}; do cfgs+=(--config "$c"); done
timeout 120 "$NB" --backend wgpu "${cfgs[@]}" --batches "${GPU_CHECK_BATCHES:-1,64,256,1024}" \
    --train-batch 256 --seconds "$SECS" --no-full | tee "$OUT/net_bench.md"
echo "net_bench exit ${PIPESTATUS[0]}"

if [ "${GPU_CHECK_MCTS:-1}" != 0 ]; then
    stamp "bench mcts (wgpu, net-gpu)"
    timeout 60 "$B" bench mcts --backend wgpu --config configs/net-gpu.toml --games 64,256 \
        --threads 8,16 --visits 64 | tee "$OUT/mcts.md"
    echo "bench mcts exit ${PIPESTATUS[0]}"
fi

# configs/gpu.toml as it ships, except the warm-up (50,000 positions) and the intervals, which
# are cut so that training and checkpoints happen within the call; evaluation is off (its
# arena games at 64 visits would take minutes; the MCTS bench above covers search on the GPU).
sed -e 's/^min_positions = .*/min_positions = 500/' \
    -e 's/^checkpoint_every_steps = .*/checkpoint_every_steps = 40/' \
    -e 's/^eval_every_checkpoints = .*/eval_every_checkpoints = 0/' \
    -e 's/^eval_games = .*/eval_games = 4/' \
    -e 's/^eval_movetime_ms = .*/eval_movetime_ms = 0/' \
    -e 's/^report_every_steps = .*/report_every_steps = 10/' \
    -e 's/^train_steps_per_1000_positions = .*/train_steps_per_1000_positions = 20.0/' \
    configs/gpu.toml > configs/gpu-smoke.toml
if [ -n "${GPU_CHECK_NETWORK:-}" ]; then
    sed -i "s|^network = .*|network = \"$GPU_CHECK_NETWORK\"|" configs/gpu-smoke.toml
fi
grep '^network' configs/gpu-smoke.toml
rm -rf /tmp/gpu-run
stamp "train configs/gpu.toml (smoke intervals), ${TRAIN_MIN} min"
timeout 300 "$B" train --config configs/gpu-smoke.toml --run-dir /tmp/gpu-run --backend wgpu \
    --max-minutes "$TRAIN_MIN" --quiet
echo "train exit $?"
stamp "resume for 0.5 min"
timeout 120 "$B" train --run-dir /tmp/gpu-run --backend wgpu --max-minutes 0.5 --quiet
echo "resume exit $?"
cp /tmp/gpu-run/train.log /tmp/gpu-run/metrics.csv "$OUT/" 2>/dev/null
ls /tmp/gpu-run/checkpoints 2>/dev/null
rm -f configs/gpu-smoke.toml
stamp "done"
echo "---- summary ----"
cat "$OUT/net_bench.md" 2>/dev/null | grep '^|' | head -20
grep '^|' "$OUT/mcts.md" 2>/dev/null
grep -E "resumed|stopped|evaluation|error" /tmp/gpu-run/train.log 2>/dev/null | tail -8
