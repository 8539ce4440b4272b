#!/usr/bin/env bash
# Carry a long training run across sessions (a session's processes end when it stops).
#
#   scripts/carry-run.sh save NAME      runs/NAME -> checkpoints/NAME-run/ (to commit)
#   scripts/carry-run.sh restore NAME   checkpoints/NAME-run/ -> runs/NAME (then resume it with
#                                       `cargo run --release -- train --run-dir runs/NAME`)
#
# What is carried: the run's config.toml, metrics.csv, train.log, charts, evaluation games and
# its newest checkpoint (with the optimiser state) as latest.ckpt; not the replay games, which
# refill from self-play (a run without its games counts the positions its steps stand for as
# played, so it keeps its training schedule).
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { echo "usage: $0 save|restore NAME" >&2; exit 2; }
[ $# -eq 2 ] || usage
mode=$1 name=$2
run=runs/$name carry=checkpoints/$name-run
case $mode in
save)
    [ -f "$run/checkpoints/latest" ] || { echo "$run has no checkpoints/latest" >&2; exit 1; }
    latest=$(tr -d '[:space:]' < "$run/checkpoints/latest")
    mkdir -p "$carry/eval"
    cp "$run/config.toml" "$run/metrics.csv" "$run/train.log" "$carry/"
    cp "$run"/eval/*.pgn "$carry/eval/" 2>/dev/null || true
    cp "$run/checkpoints/$latest" "$carry/.latest.ckpt.tmp" && mv "$carry/.latest.ckpt.tmp" "$carry/latest.ckpt"
    cargo run --release -q -- plot "$carry"
    echo "saved $run ($latest) to $carry"
    ;;
restore)
    [ -f "$carry/latest.ckpt" ] || { echo "$carry has no latest.ckpt" >&2; exit 1; }
    if [ -e "$run/checkpoints/latest" ]; then echo "$run already exists: resume it directly" >&2; exit 1; fi
    step=$(cargo run --release -q -- checkpoint info "$carry/latest.ckpt" | sed -n 's/^step = //p')
    ckpt=$(printf 'step-%09d.ckpt' "$step")
    mkdir -p "$run/checkpoints"
    cp "$carry/config.toml" "$carry/metrics.csv" "$run/"
    cp "$carry/latest.ckpt" "$run/checkpoints/$ckpt"
    echo "$ckpt" > "$run/checkpoints/latest"
    echo "restored $carry to $run at step $step; resume: cargo run --release -- train --run-dir $run"
    ;;
*) usage ;;
esac
