#!/usr/bin/env bash
# Peak resident memory of one objbench run of N 1 KiB GETs on the embedded lab,
# with the defaults: 100,000 samples kept and saved in a results database (a
# fresh one, in a temporary folder), the collector under objbench's budget.
# Target: under 100 MB, for N = 1,000,000 closed loop and for 10,000,000
# open loop at a rate this machine sustains.
#   bench/memory.sh [N]                 closed loop, concurrency 8 (default 1000000)
#   bench/memory.sh -open RATE [N]      open loop at RATE GETs/s (default N 10000000;
#                                       takes N/RATE seconds: 10 M at 5000/s is 33 min)
# Prints N, wall time, the peak RSS (the kernel's high-water mark), and the
# peaks of its two parts sampled every 0.2 s: anon (the heap, stacks: what
# the run holds) and file (the binary's code and read-only data the kernel
# maps: 35-45 MB of objbench's 100 MB binary once its packages are
# initialised, given back before the first step, about 30 MB while the run
# goes; the same for any N), with the run's collections and stop-the-world
# pauses; in open loop, the operations done and those that started late or
# were dropped (past --max-late): a rate the machine does not sustain shows
# there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rate=
if [[ ${1:-} == -open ]]; then
  rate=${2:?usage: bench/memory.sh -open RATE [N]}
  shift 2
fi
n=${1:-$([[ -n $rate ]] && echo 10000000 || echo 1000000)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/objbench" ./cmd/objbench)
args=(run --workload latency --gets "$n" --op-sizes 0 --op-count 1 --latency-concurrency 8 --duration 0 -q --json -o "$tmp/out.json")
if [[ -n $rate ]]; then
  # Enough workers for the rate's round trips; arrivals that find none start
  # late (counted) or are dropped past --max-late.
  args+=(--rate "$rate" --max-inflight 64 --max-late 1s)
fi
XDG_DATA_HOME=$tmp/data /usr/bin/time -f '%M %e' -o "$tmp/time" "$tmp/objbench" "${args[@]}" &
pid=$!
anon=0 file=0 child=
while kill -0 "$pid" 2>/dev/null; do
  [[ -n $child ]] || child=$(pgrep -P "$pid" | head -1 || true) # objbench, under time
  read -r a f < <(awk '/^RssAnon/ {a=$2} /^RssFile/ {f=$2} END {print a+0, f+0}' "/proc/${child:-$pid}/status" 2>/dev/null || echo 0 0)
  ((a > anon)) && anon=$a
  ((f > file)) && file=$f
  sleep 0.2
done
wait "$pid"
read -r rss_kb wall <"$tmp/time"
printf '%-10s %-10s %-8s %-14s %-12s %-12s %-10s %-10s %-10s %-10s %-10s %s\n' requests mode wall_s peak_rss_MB anon_peak_MB file_peak_MB gc_cycles pause_ms done late dropped target_MB
python3 - "$tmp/out.json" "$n" "${rate:-closed}" "$wall" "$rss_kb" "$anon" "$file" <<'EOF'
import json, sys
path, n, mode, wall, rss, anon, file = sys.argv[1:]
r = next(r for r in json.load(open(path))["results"] if r["op"] == "get")
gc = r.get("gc") or {}
ol = r.get("open_loop") or {}
mode = mode if mode == "closed" else "open@" + mode
print("%-10s %-10s %-8s %-14.1f %-12.1f %-12.1f %-10s %-10.0f %-10s %-10s %-10s %s" % (n, mode, wall, int(rss) / 1024,
      int(anon) / 1024, int(file) / 1024, gc.get("cycles", "-"), gc.get("pause_total_ms", 0), r.get("count", "-"),
      ol.get("late", "-"), ol.get("dropped", "-"), 100))
EOF
