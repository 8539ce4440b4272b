#!/usr/bin/env bash
# The network rows of the strength ladder (BENCHMARKS.md, "Strength ladder"): MCTS with the
# networks of the two cpu runs against the alpha-beta levels, the random mover and each other,
# with the arena settings of the alpha-beta rows. JSON summaries and game records go to
# docs/ladder/. Run from the repository root after `cargo build --release`, with both runs'
# checkpoint directories present:
#
#   scripts/ladder-nets.sh runs/cpu-bootstrap/checkpoints runs/cpu/checkpoints BOOT_STEP PURE_STEP
#
# Environment: BOOT_KEPT / PURE_KEPT (kept checkpoints of each run measured against depth 1;
# default "2000 1500 1000 500" / "PURE_STEP 2000 1000"; empty: none), PREV (a previously
# shipped checkpoint: adds a 100-game match of BOOT_STEP against it).
set -euo pipefail
cd "$(dirname "$0")/.."
bdir=$1 pdir=$2 bstep=$3 pstep=$4
ck() { printf '%s/step-%09d.ckpt' "$1" "$2"; }
boot=$(ck "$bdir" "$bstep") pure=$(ck "$pdir" "$pstep")
bin=target/release/tenjiku
run() { name=$1; shift; echo "== $name: $*"; "$bin" arena "$@" --openings 6 --max-plies 300 \
    --adjudicate-material 2500 --adjudicate-plies 16 --quiet \
    --json docs/ladder/$name.json --pgn docs/ladder/$name.pgn.tmp && mv docs/ladder/$name.pgn.tmp docs/ladder/$name.pgn
    grep -E '"(games|wins|draws|losses|score|elo)"' docs/ladder/$name.json | tr -d '\n '; echo; }
net() { echo "mcts:checkpoint=$1,visits=${2:-64}"; }
rm -f docs/ladder/*.pgn.tmp
# The shipped network (64 visits) against every level.
run boot$bstep-vs-random --a "$(net "$boot")" --b random --games 20 --concurrency 2
run boot$bstep-vs-ab1 --a "$(net "$boot")" --b alphabeta:depth=1 --games 100 --concurrency 2
run boot$bstep-vs-ab2 --a "$(net "$boot")" --b alphabeta:depth=2 --games 200 --concurrency 2
run boot$bstep-vs-ab3 --a "$(net "$boot")" --b alphabeta:depth=3 --games 40 --concurrency 2
run boot$bstep-vs-1s --a "$(net "$boot")" --b alphabeta:time=1s --games 10
# Its raw policy (one visit: the network's top move) and a deeper search (400 visits, as `play`).
run boot$bstep-policy-vs-ab1 --a "mcts:checkpoint=$boot,visits=1,gumbel=0" --b alphabeta:depth=1 --games 100 --concurrency 2
run boot$bstep-v400-vs-ab1 --a "$(net "$boot" 400)" --b alphabeta:depth=1 --games 40 --concurrency 2
run boot$bstep-v400-vs-ab2 --a "$(net "$boot" 400)" --b alphabeta:depth=2 --games 40 --concurrency 2
run boot$bstep-v400-vs-ab2-seed2 --a "$(net "$boot" 400)" --b alphabeta:depth=2 --games 200 --concurrency 2 --seed 2
if [ -n "${PREV:-}" ]; then
    run boot$bstep-vs-prev --a "$(net "$boot")" --b "$(net "$PREV")" --games 100 --concurrency 2
fi
# Pure self-play against the bootstrapped run, and the kept checkpoints of both runs.
run boot$bstep-vs-pure$pstep --a "$(net "$boot")" --b "$(net "$pure")" --games 100 --concurrency 2
for s in ${PURE_KEPT-$pstep 2000 1000}; do
    run pure$s-vs-ab1 --a "$(net "$(ck "$pdir" $s)")" --b alphabeta:depth=1 --games 100 --concurrency 2
done
for s in ${BOOT_KEPT-2000 1500 1000 500}; do
    run boot$s-vs-ab1 --a "$(net "$(ck "$bdir" $s)")" --b alphabeta:depth=1 --games 100 --concurrency 2
done
