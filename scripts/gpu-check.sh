#!/usr/bin/env bash
# The whole GPU check in one call (the device machine is lent for minutes, with nothing to build
# with and no network): build beforehand here with scripts/gpu-build.sh, then run this there,
# carrying .devbin/ (binaries xz-compressed, libdevice.10.bc):
#
#   scripts/gpu-build.sh                       # here
#   scripts/gpu-check.sh                       # there (the device tool: carry [".devbin"])
#
# Steps, each under its own time limit so one that fails or hangs leaves the rest to run
# (GPU_CHECK_SCALE multiplies every limit; the defaults fit one call of under 9 minutes):
#  1. correctness: `tenjiku bench outputs`, every GPU backend × f32/bf16/f16 against flex f32
#     on the shipped network (top-1 agreement, max |value| and |prior| differences);
#  2. `net_bench` for cuda (f32 = TF32 under autotune, bf16), vulkan and wgpu (f32), on
#     net-gpu and net-large, after a warm-up (autotune benchmarks each new shape on first use);
#  3. the PyTorch anchor (scripts/torch_anchor.py, same networks and batches);
#  4. `tenjiku bench mcts` on cuda with many games in flight;
#  5. a few minutes of `tenjiku train --config configs/gpu.toml` on cuda (warm-up and intervals
#     cut so training steps run within the call), metrics with the network's mean batch and
#     busy share.
# Results go to $OUT (or ./gpu-out): one file per step and gpu-check.log, then a summary.
# GPU_CHECK_DRY=1: a dry run on a machine without a GPU (every limit cut to a few seconds;
# steps that need CUDA fail and say so), to check the script itself.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/gpu-check.log") 2>&1
T0=$(date +%s)
stamp() { echo; echo "== $(( $(date +%s) - T0 )) s: $*"; }
DRY=${GPU_CHECK_DRY:-0}
SCALE=${GPU_CHECK_SCALE:-1}
[ "$DRY" = 1 ] && SCALE=${GPU_CHECK_SCALE:-0.15}
lim() { python3 -c "import sys; print(max(5, int(float(sys.argv[1]) * float(sys.argv[2]))))" "$1" "$SCALE"; }
# Run a step under a time limit, its output also in $OUT/NAME.
step() {
    local name=$1 limit; limit=$(lim "$2"); shift 2
    stamp "$name (limit ${limit}s): $*"
    timeout -k 5 "$limit" "$@" 2>&1 | tee "$OUT/$name.txt"
    local rc=${PIPESTATUS[0]}
    echo "-- $name exit $rc$([ "$rc" = 124 ] && echo ' (time limit)')"
}

nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
echo "cores: $(nproc)"

# Binaries.
mkdir -p /tmp/devbin
for b in tenjiku net_bench; do
    [ -f .devbin/$b.xz ] || { echo "missing .devbin/$b.xz: run scripts/gpu-build.sh first"; exit 1; }
    xz -dc .devbin/$b.xz > /tmp/devbin/$b 2>/dev/null ||
        python3 -c "import lzma,sys; sys.stdout.buffer.write(lzma.open(sys.argv[1]).read())" \
            .devbin/$b.xz > /tmp/devbin/$b
    chmod +x /tmp/devbin/$b
done
B=/tmp/devbin/tenjiku
NB=/tmp/devbin/net_bench
features=$(cat .devbin/features 2>/dev/null || echo "?")
echo "binaries built with --features $features"
backends=()
case ",$features," in *,cuda,*) backends+=(cuda) ;; esac
case ",$features," in *,vulkan,*) backends+=(vulkan wgpu) ;; *,wgpu,*) backends+=(wgpu) ;; esac
csv() { local IFS=,; echo "$*"; }

# CUDA's libdevice: the machine's own (CUDA_PATH, /usr/local/cuda, a pip wheel), else the carried one.
if [ -z "${CUDA_PATH:-}" ] || [ ! -f "$CUDA_PATH/nvvm/libdevice/libdevice.10.bc" ]; then
    found=$(ls /usr/local/cuda/nvvm/libdevice/libdevice.10.bc 2>/dev/null | head -1)
    if [ -n "$found" ]; then
        export CUDA_PATH=/usr/local/cuda
    elif [ -f .devbin/cuda/nvvm/libdevice/libdevice.10.bc ]; then
        export CUDA_PATH=$PWD/.devbin/cuda
    fi
fi
echo "CUDA_PATH=${CUDA_PATH:-unset}"

POS=$([ "$DRY" = 1 ] && echo 64 || echo 1024)
step outputs 120 "$B" bench outputs --backend "$(csv "${backends[@]}")" --precision f32,bf16,f16 \
    --positions "$POS" --eval-batch 256

SECS=$([ "$DRY" = 1 ] && echo 0.3 || echo 1.5)
BATCHES=$([ "$DRY" = 1 ] && echo 16 || echo 256,1024,4096)
CFGS=(--config configs/net-gpu.toml --config configs/net-large.toml)
for bp in cuda:f32 cuda:bf16 vulkan:f32 vulkan:f16 wgpu:f32; do
    b=${bp%%:*} p=${bp##*:}
    [[ " ${backends[*]} " == *" $b "* ]] || continue
    step "net_bench-$b-$p" 75 "$NB" --backend "$b" --precision "$p" "${CFGS[@]}" --batches "$BATCHES" \
        --train-batch 256 --seconds "$SECS" --no-full --peak-size 4096
done

if python3 -c "import torch" 2>/dev/null; then
    step torch_anchor 90 python3 scripts/torch_anchor.py --config configs/net-gpu.toml \
        --config configs/net-large.toml --batches "$BATCHES" --precision f32,tf32,bf16 --seconds "$SECS"
else
    echo "no PyTorch here: the anchor is SKIPPED"
fi

main=${backends[0]:-cpu}
step mcts 60 "$B" bench mcts --backend "$main" --config configs/net-gpu.toml --games 256,1024 \
    --threads "$(nproc)" --visits 64

# configs/gpu.toml as it ships, except the warm-up (50,000 positions) and the intervals, cut so
# that training and checkpoints happen within the call; evaluation off (its arena games take
# minutes; the MCTS bench covers search on the GPU).
sed -e 's/^min_positions = .*/min_positions = 2000/' \
    -e 's/^checkpoint_every_steps = .*/checkpoint_every_steps = 50/' \
    -e 's/^eval_every_checkpoints = .*/eval_every_checkpoints = 0/' \
    -e 's/^eval_movetime_ms = .*/eval_movetime_ms = 0/' \
    -e 's/^report_every_steps = .*/report_every_steps = 10/' \
    -e "s/^threads = .*/threads = $(nproc)/" \
    configs/gpu.toml > /tmp/gpu-smoke.toml
cp configs/net-gpu.toml /tmp/
rm -rf /tmp/gpu-run
TRAIN_MIN=$([ "$DRY" = 1 ] && echo 0.3 || echo "${GPU_CHECK_TRAIN_MINUTES:-2.5}")
step train 240 "$B" train --config /tmp/gpu-smoke.toml --run-dir /tmp/gpu-run --backend "$main" \
    --max-minutes "$TRAIN_MIN" --quiet
cp /tmp/gpu-run/train.log /tmp/gpu-run/metrics.csv "$OUT/" 2>/dev/null

stamp "done"
echo "---- summary ----"
grep '^|' "$OUT/outputs.txt" 2>/dev/null
for f in "$OUT"/net_bench-*.txt; do [ -f "$f" ] && { echo "$(basename "$f" .txt):"; grep -E '^\| net|^backend|matmul' "$f"; }; done
grep -E '^\||matmul' "$OUT/torch_anchor.txt" 2>/dev/null
grep '^|' "$OUT/mcts.txt" 2>/dev/null
grep -E "started|stopped|error|warning" /tmp/gpu-run/train.log 2>/dev/null | tail -5
python3 - "$OUT/metrics.csv" <<'EOF' 2>/dev/null
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows[-3:]:
    print({k: r.get(k) for k in ("time_s", "step", "positions", "selfplay_positions_per_s", "train_steps_per_s", "net_mean_batch", "net_busy")})
EOF
