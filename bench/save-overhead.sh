#!/usr/bin/env bash
# What saving to the results database adds to a run: the same run of N 1 KiB
# GETs (100,000 raw samples kept) with and without --no-save, side by side.
# Rounds alternate the order (A B, then B A) so that drift in the machine
# falls on both; CPU seconds (user + system) are printed beside wall time
# because they are steadier on a shared machine.
# Target: saving adds under 2% of wall time at N = 1,000,000.
#   bench/save-overhead.sh [N] [ROUNDS]     (defaults 1000000 and 2)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-1000000}
rounds=${2:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/objbench" ./cmd/objbench)
run() { # run VARIANT-FLAGS -> "wall cpu"
  /usr/bin/time -f "%e %U %S" -o "$tmp/time" "$tmp/objbench" run --workload latency --gets "$n" --op-sizes 0 --op-count 1 \
    --latency-concurrency 8 --duration 0 -q --json -o /dev/null --db "$tmp/results.db" --keep-samples 100000 "$@"
  awk '{printf "%.2f %.2f", $1, $2 + $3}' "$tmp/time"
}
printf '%-6s %-10s %-10s %-10s %-10s %-10s %s\n' round nosave_s save_s wall_diff nosave_cpu save_cpu cpu_diff
for ((r = 1; r <= rounds; r++)); do
  if ((r % 2)); then
    read -r aw ac <<<"$(run --no-save)"
    read -r bw bc <<<"$(run)"
  else
    read -r bw bc <<<"$(run)"
    read -r aw ac <<<"$(run --no-save)"
  fi
  pct() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%+.1f%%", 100*(b-a)/a}'; }
  printf '%-6s %-10s %-10s %-10s %-10s %-10s %s\n' "$r" "$aw" "$bw" "$(pct "$aw" "$bw")" "$ac" "$bc" "$(pct "$ac" "$bc")"
done
