#!/usr/bin/env bash
# Self-play scaling over a store: positions per second uploaded by 1, 2, ... workers playing
# the same published network (no trainer running while they play), one run per worker count.
#   scripts/bench-workers.sh [CONFIG] [MINUTES] [COUNTS...]
#   scripts/bench-workers.sh configs/cpu.toml 4 1 2
# Each worker gets threads=1. Prints a table (workers, positions, seconds, positions/s, ratio
# to one worker) and keeps the logs under $OUT (default: a temporary directory).
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIG=${1:-configs/cpu.toml}
MINUTES=${2:-4}
shift 2 || true
COUNTS=("${@:-1 2}")
[ ${#COUNTS[@]} -eq 1 ] && read -r -a COUNTS <<< "${COUNTS[0]}"
BIN=${BIN:-target/release/tenjiku}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
[ -x "$BIN" ] || cargo build --release --bin tenjiku
echo "config $CONFIG, $MINUTES min per run, logs in $OUT" >&2
base=""
printf "| workers | positions | seconds | positions/s | ratio to 1 worker |\n|---|---|---|---|---|\n"
for n in "${COUNTS[@]}"; do
  store="$OUT/store-$n"
  # The trainer publishes step 0's network, then stops.
  "$BIN" learn --store "$store" --config "$CONFIG" --max-steps 0 --quiet > "$OUT/trainer-$n.log" 2>&1 &
  tp=$!
  while [ ! -e "$store/published/000000001" ]; do
    kill -0 $tp 2>/dev/null || { echo "the trainer stopped: see $OUT/trainer-$n.log" >&2; exit 1; }
    sleep 0.2
  done
  kill -INT $tp; wait $tp || true
  start=$(date +%s.%N)
  pids=()
  for ((w = 0; w < n; w++)); do
    "$BIN" selfplay --store "$store" --worker "$w" --set threads=1 --max-minutes "$MINUTES" --report-seconds 60 \
      > "$OUT/worker-$n-$w.log" 2>&1 &
    pids+=($!)
  done
  wait "${pids[@]}"
  end=$(date +%s.%N)
  # Positions played (the games still in progress at the stop included).
  positions=$(cat "$OUT"/worker-$n-*.log | sed -n 's/.* uploaded; \([0-9]*\) positions played in .*/\1/p' | awk '{s+=$1} END {print s+0}')
  secs=$(echo "$end - $start" | bc)
  rate=$(echo "scale=1; $positions / $secs" | bc)
  [ -z "$base" ] && base=$rate
  ratio=$(echo "scale=2; $rate / $base" | bc)
  printf "| %d | %d | %.0f | %s | %s |\n" "$n" "$positions" "$secs" "$rate" "$ratio"
done
