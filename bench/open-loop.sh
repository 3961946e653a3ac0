#!/usr/bin/env bash
# Open-loop pacing on the embedded lab with 1 KiB GETs (issue 16), in one run:
#  1. the pacer's own timing error: p50/p99 of (actual send - intended start)
#     at 5,000 ops/s (target: p99 under 1 ms), with the achieved rate;
#  2. the highest rate one process sustains: the offered rates in turn, each
#     marked ok when it achieves 98% of the offer with a start lag p99 under 10 ms.
#   bench/open-loop.sh [SECONDS] [RATES]     (default 10 s; 1000,2000,5000,10000,20000)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-10}
rates=${2:-1000,2000,5000,10000,20000}
bin=$(mktemp -d)/objbench
trap 'rm -rf "$(dirname "$bin")"' EXIT
(cd "$root" && go build -o "$bin" ./cmd/objbench)
printf '%-10s %-12s %-12s %-10s %-12s %-12s %-12s %s\n' offered achieved achieved_% late_% lag_p50_ms lag_p99_ms total_p99_ms sustained
for rate in ${rates//,/ }; do
  "$bin" run --no-save --json -q --workload mixed --mix get=100 --keys 10 --sizes 1KiB \
    --rate "$rate" --duration "${secs}s" --max-inflight 64 --max-late 1s 2>/dev/null |
    python3 -c '
import json, sys
r = json.load(sys.stdin)["results"][0]; o = r["open_loop"]; rate = float(sys.argv[1])
done = r["count"] + r["errors"] + o["dropped"]
ach = o["achieved_ops_per_s"]; late = 100 * o["late"] / max(done, 1)
lag = o["start_lag_ms"]; p99 = r["total_ms"]["p99"]
ok = "ok" if ach >= 0.98 * rate and lag["p99"] < 10 else "no"
print("%-10.0f %-12.0f %-12.1f %-10.1f %-12.3f %-12.3f %-12.2f %s" % (rate, ach, 100 * ach / rate, late, lag["p50"], lag["p99"], p99, ok))
' "$rate"
done
