#!/usr/bin/env bash
# Memory and database growth of a long open-loop mixed run (issue 16):
# one run at RATE ops/s for SECONDS on the embedded lab, RSS sampled every
# 10 s, then the results database's size; both extrapolated to one hour
# (targets at 1,000 ops/s for 1 h: RSS under 150 MB, database under 50 MB).
# Flat growth: the RSS of the second half of the run is that of the first.
#   bench/soak.sh [SECONDS] [RATE]     (default 120 s at 1000 ops/s)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-120}
rate=${2:-1000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
(cd "$root" && go build -o "$dir/objbench" ./cmd/objbench)
"$dir/objbench" run --db "$dir/r.db" -q --workload mixed --mix get=70,put=20,list=5,head=3,delete=2 \
  --sizes 1KiB:60,16KiB:40 --keys 1000 --key-dist zipf:1.1 --rate "$rate" --duration "${secs}s" --max-inflight 32 \
  --json -o "$dir/run.json" 2>/dev/null &
pid=$!
printf '%-8s %s\n' t_s rss_MB
t=0
while kill -0 "$pid" 2>/dev/null; do
  sleep 10; t=$((t + 10))
  rss=$(awk '/VmRSS/{print $2}' "/proc/$pid/status" 2>/dev/null || true)
  [[ -n $rss ]] && printf '%-8s %.1f\n' "$t" "$(awk -v k="$rss" 'BEGIN{print k/1024}')"
done
wait "$pid"
db=$(stat -c %s "$dir/r.db")
python3 - "$dir/run.json" "$db" "$secs" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); db = int(sys.argv[2]); secs = float(sys.argv[3])
ops = sum(r["count"] + r["errors"] for r in d["results"])
print(f"ops {ops} in {secs:.0f} s ({ops/secs:.0f} ops/s); database {db/1e6:.2f} MB -> {db/1e6*3600/secs:.1f} MB per hour (target 50)")
PY
