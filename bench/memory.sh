#!/usr/bin/env bash
# Peak resident memory of one objbench run of N 1 KiB GETs on the embedded lab,
# with the defaults: 100,000 samples kept and saved in a results database (a
# fresh one, in a temporary folder), the collector under objbench's budget.
# Target: under 100 MB, for N = 1,000,000 closed loop and for 10,000,000
# open loop at a rate this machine sustains.
#   bench/memory.sh [-base REV] [N]              closed loop, concurrency 8 (default 1000000)
#   bench/memory.sh [-base REV] -open RATE [N]   open loop at RATE GETs/s (default N 10000000;
#                                                takes N/RATE seconds: 10 M at 2500/s is 67 min)
# With -base, the same run of REV's objbench (built in a temporary worktree)
# first, then this tree's: one row each, side by side.
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
rate= base=
while [[ $# -gt 0 ]]; do
  case $1 in
    -open) rate=${2:?usage: bench/memory.sh [-base REV] -open RATE [N]}; shift 2 ;;
    -base) base=${2:?usage: bench/memory.sh -base REV [N]}; shift 2 ;;
    -*) echo "usage: bench/memory.sh [-base REV] [-open RATE] [N]" >&2; exit 2 ;;
    *) break ;;
  esac
done
n=${1:-$([[ -n $rate ]] && echo 10000000 || echo 1000000)}
tmp=$(mktemp -d)
cleanup() {
  [[ -z $base ]] || git -C "$root" worktree remove --force "$tmp/base" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
builds=(head)
if [[ -n $base ]]; then
  git -C "$root" worktree add --detach "$tmp/base" "$base" >/dev/null 2>&1
  (cd "$tmp/base" && go build -o "$tmp/objbench-base" ./cmd/objbench)
  builds=(base head)
fi
(cd "$root" && go build -o "$tmp/objbench-head" ./cmd/objbench)
args=(run --workload latency --gets "$n" --op-sizes 0 --op-count 1 --latency-concurrency 8 --duration 0 -q --json)
if [[ -n $rate ]]; then
  # Enough workers for the rate's round trips; arrivals that find none start
  # late (counted) or are dropped past --max-late.
  args+=(--rate "$rate" --max-inflight 64 --max-late 1s)
fi
printf '%-12s %-10s %-10s %-8s %-14s %-12s %-12s %-10s %-10s %-10s %-10s %-10s %s\n' build requests mode wall_s peak_rss_MB \
  anon_peak_MB file_peak_MB gc_cycles pause_ms done late dropped target_MB
for b in "${builds[@]}"; do
  rev=$(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- . || echo +)
  [[ $b == base ]] && rev=$(git -C "$root" rev-parse --short "$base")
  rm -rf "$tmp/data" "$tmp/out.json"
  XDG_DATA_HOME=$tmp/data /usr/bin/time -f '%M %e' -o "$tmp/time" "$tmp/objbench-$b" "${args[@]}" -o "$tmp/out.json" &
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
  python3 - "$tmp/out.json" "$b $rev" "$n" "${rate:-closed}" "$wall" "$rss_kb" "$anon" "$file" <<'PY'
import json, sys
path, build, n, mode, wall, rss, anon, file = sys.argv[1:]
r = next(r for r in json.load(open(path))["results"] if r["op"] == "get")
gc = r.get("gc") or {}
ol = r.get("open_loop") or {}
mode = mode if mode == "closed" else "open@" + mode
print("%-12s %-10s %-10s %-8s %-14.1f %-12.1f %-12.1f %-10s %-10.0f %-10s %-10s %-10s %s" % (build, n, mode, wall,
      int(rss) / 1024, int(anon) / 1024, int(file) / 1024, gc.get("cycles", "-"), gc.get("pause_total_ms", 0),
      r.get("count", "-"), ol.get("late", "-"), ol.get("dropped", "-"), 100))
PY
done
