#!/usr/bin/env bash
# Memory and database growth of a long open-loop mixed run (issue 16):
# one run at RATE ops/s for SECONDS on the embedded lab, RSS sampled every
# 10 s, then the results database's size; both extrapolated to one hour
# (targets at 1,000 ops/s for 1 h: RSS under 150 MB, database under 50 MB).
# Flat growth: the RSS of the second half of the run is that of the first.
# The raw samples kept (--keep-samples, 100,000 by default) are a fixed cost
# reached early; KEEP (default 10000) reaches it within seconds so that
# what is left to grow is the series. The database line splits the series
# (which grows with time) from the rest (which does not).
#   bench/soak.sh [SECONDS] [RATE] [KEEP]     (default 120 s at 1000 ops/s, 10000)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-120}
rate=${2:-1000}
keep=${3:-10000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
(cd "$root" && go build -o "$dir/objbench" ./cmd/objbench)
"$dir/objbench" run --db "$dir/r.db" -q --workload mixed --mix get=70,put=20,list=5,head=3,delete=2 \
  --sizes 1KiB:60,16KiB:40 --keys 200 --key-dist zipf:1.1 --rate "$rate" --duration "${secs}s" --max-inflight 32 \
  --keep-samples "$keep" --json -o "$dir/run.json" 2>/dev/null &
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
python3 - "$dir/run.json" "$db" "$secs" "$dir/r.db" <<'PY'
import json, sqlite3, sys
d = json.load(open(sys.argv[1])); db = int(sys.argv[2]); secs = float(sys.argv[3])
con = sqlite3.connect(sys.argv[4])
series = con.execute("SELECT coalesce(sum(length(data)), 0) FROM step_histograms WHERE metric = 'series'").fetchone()[0]
ops = sum(r["count"] + r["errors"] for r in d["results"])
print(f"ops {ops} in {secs:.0f} s ({ops/secs:.0f} ops/s)")
print(f"database {db/1e6:.2f} MB, of which series {series/1e6:.2f} MB")
print(f"per hour: series {series/1e6*3600/secs:.1f} MB + the rest {(db-series)/1e6:.1f} MB (fixed) = {(series*3600/secs + db - series)/1e6:.1f} MB (target 50)")
PY
