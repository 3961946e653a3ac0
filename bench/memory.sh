#!/usr/bin/env bash
# Peak resident memory of one objbench run of N 1 KiB GETs on the embedded lab
# (target: under 100 MB for N = 1,000,000). Prints N, wall time and peak RSS.
#   bench/memory.sh [N]      (default 1000000)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-1000000}
bin=$(mktemp -d)/objbench
trap 'rm -rf "$(dirname "$bin")"' EXIT
(cd "$root" && go build -o "$bin" ./cmd/objbench)
out=$(mktemp)
/usr/bin/time -f '%M %e' -o "$out" "$bin" run --workload latency --gets "$n" --op-sizes 0 --op-count 1 \
  --latency-concurrency 8 --duration 0 -q --json -o /dev/null
read -r rss_kb wall <"$out"
rm -f "$out"
printf '%-12s %-10s %-14s %s\n' requests wall_s peak_rss_MB target_MB
printf '%-12s %-10s %-14.1f %s\n' "$n" "$wall" "$(awk -v k="$rss_kb" 'BEGIN{print k/1024}')" 100
