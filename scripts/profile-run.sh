#!/usr/bin/env bash
# Where a running training loop's time goes: samples a `tenjiku train` process with `perf` for a
# while (it keeps running; sampling at 500 Hz slows it by a few percent) and prints the share of
# CPU samples by kind of work (the network's matrix kernels, the convolutions' unfolding and
# copies, other tensor operations, the rules and the search, ...), then the top symbols.
#
#   scripts/profile-run.sh RUN_DIR [SECONDS]    e.g. scripts/profile-run.sh runs/cpu-scratch-r3 60
#
# Needs `perf` (Debian: linux-perf) and kernel.perf_event_paranoid <= 2 (user-space samples of
# your own processes). The raw report is kept as $TMPDIR/profile-run.report.txt.
set -euo pipefail
[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 RUN_DIR [SECONDS]" >&2; exit 2; }
run=${1%/} seconds=${2:-60}
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "SECONDS must be a whole number, at least 1, not '$seconds'" >&2; exit 2; }
command -v perf > /dev/null || { echo "perf is not installed (Debian: apt-get install linux-perf)" >&2; exit 1; }
pid=$(pgrep -n -f -- " train( .*)? --run-dir $run( |\$)") ||
    { echo "no 'train --run-dir $run' process is running" >&2; exit 1; }
tmp=${TMPDIR:-/tmp}
data=$tmp/profile-run.perf report=$tmp/profile-run.report.txt
perf record -q -F 500 -p "$pid" -o "$data" -- sleep "$seconds" 2> /dev/null
perf report -i "$data" --no-children --sort dso,symbol --stdio 2> /dev/null | grep '%' > "$report"
echo "process $pid ($run), $seconds s, $(perf report -i "$data" --stdio 2> /dev/null | sed -n 's/^# Samples: \([^ ]*\).*/\1/p' | head -1) samples"
awk '
    match($0, /^ *[0-9.]+%/) {
        p = substr($0, RSTART, RLENGTH - 1) + 0
        dso = $2; sym = $0; sub(/^[^]]*\] /, "", sym)
        if (dso ~ /kernel/) k = "kernel (page faults, scheduling)"
        else if (sym ~ /memset|memmove|memcpy/) k = "memset, memcpy"
        else if (sym ~ /gemm/ && sym !~ /burn_flex/) k = "matrix kernels (gemm)"
        else if (sym ~ /conv|im2col|copy_2d|copy_batched|consume_iter/) k = "convolution unfolding, copies (burn_flex)"
        else if (sym ~ /burn|macerator|zip|unary/ || dso ~ /libm/) k = "other tensor operations (burn, libm)"
        else if (sym ~ /(search|engine)::/) k = "rules and search (engine, search)"
        else if (sym ~ /nn::/) k = "encoding, policy gather (nn)"
        else if (sym ~ /train::/) k = "replay, game files (train)"
        else if (sym ~ /alloc|malloc|free/) k = "allocation"
        else k = "other"
        share[k] += p
    }
    END { for (k in share) printf "%6.1f%%  %s\n", share[k], k }
' "$report" | sort -rn
echo "top symbols:"
head -15 "$report" | cut -c1-150
