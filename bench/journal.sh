#!/usr/bin/env bash
# The journal's cost, side by side in one run: the traced runner's
# throughput and the process's peak memory for one objbench run of N 1 KiB
# GETs on the embedded lab, closed loop at concurrency 8 (as
# bench/memory.sh runs it), saved in a fresh results database, with the
# journal off (--no-journal) and on, in turns, R rounds of each. The
# journal writes one transaction per --interval (1 s by default; 100 ms
# here with -interval 100ms, ten times the writes).
#   bench/journal.sh [-base REV] [-rounds R] [-interval D] [-open RATE] [N]   (default R 3, D 1s, N 300000)
# With -base, "off" is REV's objbench (built in a temporary worktree: no
# journal at all) instead of this tree's with --no-journal.
# Prints one row per run (ops/s over the GET step's wall time, peak RSS
# from the kernel's high-water mark, the process's CPU per GET: on a busy
# machine CPU per operation holds where wall-clock throughput does not),
# then the medians and the change; the target is within 5%.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
base= rounds=3 interval=1s rate=
while [[ $# -gt 0 ]]; do
  case $1 in
    -base) base=${2:?}; shift 2 ;;
    -rounds) rounds=${2:?}; shift 2 ;;
    -interval) interval=${2:?}; shift 2 ;;
    -open) rate=${2:?}; shift 2 ;;
    -*) echo "usage: bench/journal.sh [-base REV] [-rounds R] [-interval D] [-open RATE] [N]" >&2; exit 2 ;;
    *) break ;;
  esac
done
n=${1:-300000}
tmp=$(mktemp -d)
cleanup() {
  [[ -z $base ]] || git -C "$root" worktree remove --force "$tmp/base" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
(cd "$root" && go build -o "$tmp/objbench-on" ./cmd/objbench)
off=("$tmp/objbench-on" --no-journal)
if [[ -n $base ]]; then
  git -C "$root" worktree add --detach "$tmp/base" "$base" >/dev/null 2>&1
  (cd "$tmp/base" && go build -o "$tmp/objbench-off" ./cmd/objbench)
  off=("$tmp/objbench-off")
fi
args=(run --workload latency --gets "$n" --op-sizes 0 --op-count 1 --latency-concurrency 8 --duration 0 --interval "$interval" -q --json)
[[ -z $rate ]] || args+=(--rate "$rate" --max-inflight 64 --max-late 1s)
printf '%-6s %-6s %-10s %-10s %-12s %-14s %s\n' round mode requests wall_s get_ops_s peak_rss_MB cpu_us_per_op
: >"$tmp/rows"
for r in $(seq 1 "$rounds"); do
  for mode in off on; do
    if [[ $mode == off ]]; then cmd=("${off[0]}" "${args[@]}" "${off[@]:1}"); else cmd=("$tmp/objbench-on" "${args[@]}"); fi
    rm -rf "$tmp/data" "$tmp/out.json"
    XDG_DATA_HOME=$tmp/data /usr/bin/time -f '%M %e %U %S' -o "$tmp/time" "${cmd[@]}" -o "$tmp/out.json"
    read -r rss_kb wall user sys <"$tmp/time"
    python3 - "$tmp/out.json" "$r" "$mode" "$n" "$wall" "$rss_kb" "$user" "$sys" <<'PY' | tee -a "$tmp/rows"
import json, sys
path, r, mode, n, wall, rss, user, sys_ = sys.argv[1:]
res = next(x for x in json.load(open(path))["results"] if x["op"] == "get")
done = res["count"] + res["errors"]
ops = done / res["wall_s"]
cpu = (float(user) + float(sys_)) * 1e6 / done
print("%-6s %-6s %-10s %-10s %-12.0f %-14.1f %.1f" % (r, mode, n, wall, ops, int(rss) / 1024, cpu))
PY
  done
done
python3 - "$tmp/rows" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = {}
for mode in ("off", "on"):
    rs = [r for r in rows if r[1] == mode]
    med[mode] = [statistics.median(float(r[i]) for r in rs) for i in (4, 5, 6)]
    print("median %-6s %-10s %-10s %-12.0f %-14.1f %.1f" % (mode, "", "", *med[mode]))
d = [(med["on"][i] / med["off"][i] - 1) * 100 for i in range(3)]
print("change with the journal: throughput %+.1f%%, peak RSS %+.1f%%, CPU per op %+.1f%% (target: within 5%%) %s" % (*d,
      "ok" if d[0] >= -5 and d[1] <= 5 and d[2] <= 5 else "OVER"))
PY
