#!/usr/bin/env bash
# The 200-game yardstick of issue 23 (BENCHMARKS.md "Learning from scratch"): MCTS with a
# checkpoint at 32 visits (material_mix=0.5, the run's search) against an alpha-beta level on
# balanced openings, with the protocol every record in docs/training/scratch/ uses.
#
#   scripts/scratch-match.sh NAME CHECKPOINT [BASELINE] [GUARD] [GAMES] [VISITS] [SEED] [EXTRA]
#
# BASELINE defaults to alphabeta:depth=1, GUARD (the spec's guard=, 0-2) to 2, GAMES to 200,
# VISITS (the network side's visits per move) to 32, SEED (the openings' and engines' seed) to 21;
# EXTRA is appended to the network side's spec (e.g. ,captures=0.25); MIX (environment, default
# 0.5) is the network side's material_mix.
# The checkpoint is copied first (the run may prune it while the match plays). Writes
# docs/training/scratch/NAME.json, NAME.pgn.xz and NAME.txt (the report, with the wall time).
# Run from anywhere after `cargo build --release`.
set -euo pipefail
cd "$(dirname "$0")/.."
usage='usage: scratch-match.sh NAME CHECKPOINT [BASELINE] [GUARD] [GAMES] [VISITS] [SEED] [EXTRA]'
name=${1:?$usage}
ckpt=${2:?$usage}
base=${3:-alphabeta:depth=1} guard=${4:-2} games=${5:-200} visits=${6:-32} seed=${7:-21} extra=${8:-}
mix=${MIX:-0.5}
out=docs/training/scratch
[ -f "$ckpt" ] || { echo "scratch-match: no checkpoint file $ckpt" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$ckpt" "$tmp/net.ckpt"
start=$(date +%s)
target/release/tenjiku arena --a "mcts:checkpoint=$tmp/net.ckpt,visits=$visits,material_mix=$mix,guard=$guard$extra" \
    --b "$base" --games "$games" --openings 6 --balanced 150 --adjudicate-material 2500 \
    --adjudicate-plies 16 --max-plies 300 --seed "$seed" --concurrency 2 --quiet \
    --json "$tmp/r.json" --pgn "$tmp/r.pgn" > "$tmp/r.txt"
echo "wall time: $(( $(date +%s) - start )) s; checkpoint: $ckpt" >> "$tmp/r.txt"
xz -9 -c "$tmp/r.pgn" > "$out/$name.pgn.xz.tmp" && mv "$out/$name.pgn.xz.tmp" "$out/$name.pgn.xz"
mv "$tmp/r.json" "$out/$name.json"
mv "$tmp/r.txt" "$out/$name.txt"
grep -E '"(games|wins|draws|losses|score|elo)"' "$out/$name.json" | tr -d '\n '; echo
