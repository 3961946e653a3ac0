#!/usr/bin/env bash
# What saving to the results database adds to a run: the same run of N 1 KiB
# GETs (100,000 raw samples kept) with and without --no-save, alternated,
# side by side. Target: saving adds under 2% of wall time at N = 1,000,000.
#   bench/save-overhead.sh [N] [ROUNDS]     (defaults 1000000 and 1)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-1000000}
rounds=${2:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/objbench" ./cmd/objbench)
run() { # run VARIANT -> wall seconds
  local start end
  start=$(date +%s.%N)
  "$tmp/objbench" run --workload latency --gets "$n" --op-sizes 0 --op-count 1 --latency-concurrency 8 \
    --duration 0 -q --json -o /dev/null --db "$tmp/results.db" --keep-samples 100000 "$@"
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN{printf "%.2f", e-s}'
}
printf '%-6s %-14s %-14s %s\n' round no-save_s save_s overhead
for ((r = 1; r <= rounds; r++)); do
  a=$(run --no-save)
  b=$(run)
  printf '%-6s %-14s %-14s %s\n' "$r" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN{printf "%+.1f%%", 100*(b-a)/a}')"
done
