#!/usr/bin/env bash
# The network rows of the strength ladder (BENCHMARKS.md, "Strength ladder"): MCTS at 64 visits
# per move against the alpha-beta levels, the random mover and each other, with the arena
# settings of the alpha-beta rows. JSON summaries and game records go to docs/ladder/.
#
#   scripts/ladder-nets.sh BOOT_CKPT PURE_CKPT [GAMES_VS_D2]
set -euo pipefail
cd "$(dirname "$0")/.."
boot=$1 pure=$2 n2=${3:-40}
bin=target/release/tenjiku
run() { name=$1; shift; echo "== $name"; "$bin" arena "$@" --openings 6 --max-plies 300 \
    --adjudicate-material 2500 --adjudicate-plies 16 --quiet \
    --json docs/ladder/$name.json --pgn docs/ladder/$name.pgn.tmp && mv docs/ladder/$name.pgn.tmp docs/ladder/$name.pgn; \
    grep -E '"(wins|draws|losses|score|elo)"' docs/ladder/$name.json | tr -d '\n '; echo; }
net() { echo "mcts:checkpoint=$1,visits=${2:-64}"; }
rm -f docs/ladder/*.pgn.tmp
run boot-vs-ab1 --a "$(net "$boot")" --b alphabeta:depth=1 --games 20 --concurrency 2
run boot-vs-ab2 --a "$(net "$boot")" --b alphabeta:depth=2 --games "$n2" --concurrency 2
run boot-policy-vs-ab1 --a "mcts:checkpoint=$boot,visits=1,gumbel=0" --b alphabeta:depth=1 --games 20 --concurrency 2
run boot-vs-random --a "$(net "$boot")" --b random --games 10 --concurrency 2
run boot-vs-pure --a "$(net "$boot")" --b "$(net "$pure")" --games 20 --concurrency 2
run pure-vs-ab1 --a "$(net "$pure")" --b alphabeta:depth=1 --games 20 --concurrency 2
run boot-vs-ab3 --a "$(net "$boot")" --b alphabeta:depth=3 --games 10 --concurrency 2
run boot-vs-1s --a "$(net "$boot")" --b alphabeta:time=1s --games 6
