#!/usr/bin/env bash
# The knee of a ramp of rate steps on a lab limited per prefix (issue 37): the same
# steps of 1 KiB GETs with every key under one prefix, then spread over four, their
# rows side by side (offered, goodput, throttled share, p50/p99, the SDK's retries)
# and each run's knee: the rate where the store pushed back, the goodput it settled
# at, the hot prefix.
#
#   bench/knee.sh [LIMIT] [RATES] [STEP] [MAX_ATTEMPTS]
#     (defaults: s3:get=100/s  50,100,200,400,800  2s  1)
#
# On 2 shared cores 1600/s is out of one client's reach: s3:get=200/s with
# 100,200,400,800,1600 shows the knees at 200 and 800/s where the machine allows.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
limit=${1:-s3:get=100/s} rates=${2:-50,100,200,400,800} step=${3:-2s} attempts=${4:-1}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/objbench" ./cmd/objbench)
n=$(tr ',' '\n' <<<"$rates" | wc -l)
secs=$(python3 -c "import sys; print(float(sys.argv[1].rstrip('s')) * int(sys.argv[2]))" "$step" "$n")
for p in 1 4; do
  "$tmp/objbench" run --no-save --json -q --limit "$limit" --prefixes "$p" --max-attempts "$attempts" \
    --workload mixed --mix get=100 --keys 40 --sizes 1KiB --rate "$rates" --step "$step" --duration "${secs}s" \
    -o "$tmp/p$p.json"
done
echo "lab limited to $limit; steps $rates of $step; --max-attempts $attempts"
python3 - "$tmp/p1.json" "$tmp/p4.json" <<'PY'
import json, sys
docs = [json.load(open(f))["results"][0] for f in sys.argv[1:]]
cols = ("goodput/s", "throttled", "p50 ms", "p99 ms", "retries")
print(f"{'':>10} | {'1 prefix':^49} | {'4 prefixes':^49}")
print(f"{'offered/s':>10} | " + " | ".join(" ".join(f"{c:>9}" for c in cols) for _ in docs))
for rows in zip(*(d["rate_steps"] for d in docs)):
    cells = []
    for s in rows:
        cells.append(f"{s['goodput_ops_per_s']:>9.1f} {100 * s['throttled_share']:>8.1f}% {s['total_ms']['p50']:>9.2f}"
                     f" {s['total_ms']['p99']:>9.2f} {s['retries']:>9}")
    print(f"{rows[0]['offered_ops_per_s']:>10.0f} | " + " | ".join(cells))
for name, d in zip(("1 prefix", "4 prefixes"), docs):
    k = d.get("knee") or {}
    if k.get("found"):
        print(f"{name}: knee at {k['rate_ops_per_s']:.1f}/s, goodput settled at {k['goodput_ops_per_s']:.1f}/s, "
              f"hot prefix {k.get('hot_prefix', '-')} ({k['throttled_prefixes']} throttled)")
    else:
        print(f"{name}: no knee (carried up to {k.get('carried_ops_per_s', 0):.0f}/s)")
PY
