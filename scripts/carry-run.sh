#!/usr/bin/env bash
# Carry a long training run across sessions (a session's processes end when it stops).
#
#   scripts/carry-run.sh save NAME      runs/NAME -> checkpoints/NAME-run/ (to commit)
#   scripts/carry-run.sh restore NAME   checkpoints/NAME-run/ -> runs/NAME (then resume it with
#                                       `cargo run --release -- train --run-dir runs/NAME`)
#   scripts/carry-run.sh watch NAME [MINUTES]
#                                       while `train --run-dir runs/NAME` runs, save the carry and
#                                       commit checkpoints/NAME-run/ (that path only) every MINUTES
#                                       (default 30): a session can end at any moment, and a run
#                                       that was not carried is lost (BENCHMARKS.md, twentieth session)
#
# What is carried: the run's config.toml, metrics.csv, train.log, charts, evaluation games, its
# newest checkpoint (with the optimiser state) as latest.ckpt, the mean the workers play as
# averaged.ckpt (runs with `average_checkpoints` > 1), and the replay games that fill
# its window (the newest game chunks holding `window_positions` positions, as games.tar.xz,
# ~55 bytes a position). Without them a resumed run trains its next steps on the few thousand
# positions of its first new games, many times each: the scratch run fell from 36% to 13.5%
# against depth 1 in such a restart (BENCHMARKS.md "Learning from scratch"). A carry without
# games.tar.xz (older ones) still restores; its run counts the positions its steps stand for
# as played and refills from self-play.
set -euo pipefail
cd "$(dirname "$0")/.."
usage() { echo "usage: $0 save|restore NAME, or $0 watch NAME [MINUTES]" >&2; exit 2; }
[ $# -eq 2 ] || { [ $# -eq 3 ] && [ "$1" = watch ]; } || usage
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
    # With `average_checkpoints` > 1 the network the run plays is the mean of its newest
    # checkpoints: carried as averaged.ckpt (the one to measure or play). A restored run averages
    # from its latest.ckpt on, the window refilling over its next checkpoints.
    if [ -f "$run/checkpoints/averaged/$latest" ]; then
        cp "$run/checkpoints/averaged/$latest" "$carry/.averaged.ckpt.tmp" && mv "$carry/.averaged.ckpt.tmp" "$carry/averaged.ckpt"
    fi
    # The newest chunks (by modification time) up to the window; a chunk's name ends in
    # -p<positions>.chunk.
    window=$(sed -n 's/^window_positions *= *\([0-9]*\).*/\1/p' "$run/config.toml")
    if [ -d "$run/games" ] && [ -n "$window" ]; then
        find "$run/games" -name '*.chunk' -printf '%T@ %P\n' | sort -rn |
            awk -v w="$window" '{ match($2, /-p[0-9]+\.chunk$/); n = substr($2, RSTART + 2, RLENGTH - 8);
                                  if (sum >= w) next; sum += n; print "games/" $2 }' > "$carry/.games.list"
        tar -C "$run" -cf - -T "$carry/.games.list" | xz -1 -T1 > "$carry/.games.tar.xz.tmp"
        mv "$carry/.games.tar.xz.tmp" "$carry/games.tar.xz"
        echo "carried $(wc -l < "$carry/.games.list") game chunks ($(du -h "$carry/games.tar.xz" | cut -f1))"
        rm -f "$carry/.games.list"
    fi
    cargo run --release -q -- plot "$carry"
    echo "saved $run ($latest) to $carry"
    ;;
watch)
    minutes=${3:-30}
    [[ $minutes =~ ^[1-9][0-9]*$ ]] || { echo "watch: MINUTES must be a whole number of minutes, at least 1, not '$minutes'" >&2; exit 2; }
    # `train --run-dir R ...` (a resume) or `train --config C --run-dir R ...` (a start).
    running() { pgrep -f -- " train( .*)? --run-dir $run( |\$)" > /dev/null; }
    running || { echo "watch: no 'train --run-dir $run' process is running" >&2; exit 1; }
    last=$(date +%s)
    while running; do
        sleep 20
        if [ $(( $(date +%s) - last )) -ge $(( minutes * 60 )) ]; then
            last=$(date +%s)
            if "$0" save "$name"; then
                # The step of the checkpoint carried (the run may have written a newer one since).
                step=$(cargo run --release -q -- checkpoint info "$carry/latest.ckpt" | sed -n 's/^step = //p')
                git add -- "$carry"
                git commit -q -m "$name carried while training (step $step)" -- "$carry" > /dev/null ||
                    echo "watch: nothing new to commit" >&2
            fi
        fi
    done
    echo "watch: the run stopped; save it once more with: $0 save $name"
    ;;
restore)
    [ -f "$carry/latest.ckpt" ] || { echo "$carry has no latest.ckpt" >&2; exit 1; }
    if [ -e "$run/checkpoints/latest" ]; then echo "$run already exists: resume it directly" >&2; exit 1; fi
    step=$(cargo run --release -q -- checkpoint info "$carry/latest.ckpt" | sed -n 's/^step = //p')
    ckpt=$(printf 'step-%09d.ckpt' "$step")
    mkdir -p "$run/checkpoints"
    cp "$carry/config.toml" "$carry/metrics.csv" "$run/"
    # The run appends to its train.log and eval/; without them the next save would carry only
    # this session's log lines and evaluation games (the twenty-first session's save did).
    [ -f "$carry/train.log" ] && cp "$carry/train.log" "$run/"
    [ -d "$carry/eval" ] && mkdir -p "$run/eval" && cp "$carry"/eval/*.pgn "$run/eval/" 2>/dev/null || true
    cp "$carry/latest.ckpt" "$run/checkpoints/$ckpt"
    echo "$ckpt" > "$run/checkpoints/latest"
    if [ -f "$carry/games.tar.xz" ]; then
        tar -C "$run" -xJf "$carry/games.tar.xz"
        echo "restored $(find "$run/games" -name '*.chunk' | wc -l) game chunks of the replay window"
    else
        echo "no games.tar.xz: the run refills its replay window from self-play" >&2
    fi
    echo "restored $carry to $run at step $step; resume: cargo run --release -- train --run-dir $run"
    ;;
*) usage ;;
esac
