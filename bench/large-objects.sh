#!/usr/bin/env bash
# Memory bounded by design and downloads as fast clients make them, side by side in one run:
#   1. peak RSS of the quick suite (`objbench run`, defaults: client and lab in one process),
#      and of the concurrency workload alone (32 MiB objects, 20 workers);
#   2. peak RSS of one 1 GiB and one 5 GiB object PUT then GET (ranged) through the lab,
#      every body checked end to end;
#   3. a 1 GiB object's GET from MinIO: objbench --download ranged (8 MiB parts, 16 in
#      flight) against boto3's download_file and s5cmd at the same part size and parallelism,
#      and against what loopback carries (iperf3, 16 streams) while MinIO serves.
# Targets (issue 38): quick suite under 400 MB, concurrency client under 150 MB, 5 GiB under
# 250 MB, ranged GET at least 1.0x s5cmd's and boto3's, within 80% of loopback.
#
#   bench/large-objects.sh [memory|minio|all]     (default all)
#
# Part 3 needs the test services' MinIO (OBJBENCH_TEST_S3_ENDPOINT, _ACCESS_KEY, _SECRET_KEY;
# see scripts/services) and skips, saying so, what is missing: iperf3 on PATH, s5cmd on PATH or
# in .cache/bin, boto3 in .cache/clients/venv (scripts/clients install). Downloaded copies go to
# /dev/shm (memory, not disk, as objbench's discarded bodies) and are removed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-all}
tmp=$(mktemp -d)
cleanup() { rm -rf "$tmp" /dev/shm/objbench-bench-*; }
trap cleanup EXIT
(cd "$root" && go build -o "$tmp/objbench" ./cmd/objbench)
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
cache=${OBJBENCH_CACHE:-$root/.cache}
py=$cache/clients/venv/bin/python
s5=$(command -v s5cmd || true)
[[ -n $s5 ]] || { [[ -x $cache/bin/s5cmd ]] && s5=$cache/bin/s5cmd; } || true
printf '%-40s %10s %8s\n' "GET 1 GiB from MinIO (${part} MiB x ${par})" MB/s ratio
# objbench: three ranged GETs of its own 1 GiB object, each checked as it streams.
"$tmp/objbench" run "s3://$bucket" --endpoint "$ep" --create-bucket --workload throughput --sizes 1GiB --size-count 3 \
  --download ranged --part-size "${part}MiB" --part-concurrency "$par" --timeout 10m --duration 10m -q --json -o "$tmp/minio.json" >/dev/null 2>"$tmp/err" ||
  { tail -n 5 "$tmp/err" >&2; }
ours=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = [r for r in d["results"] if r["op"] == "get"][0]
print("%.0f" % (r.get("aggregate_mb_per_s") or 0))' "$tmp/minio.json" 2>/dev/null || echo 0)
printf '%-40s %10s %8s\n' "objbench --download ranged" "$ours" 1.00
ratio() { python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print('%.2f' % (a/b) if b else '-')" "$1" "$2"; }
# The others download an object of the same size, uploaded once.
key=bench/one-gib
if [[ -x $py ]] && "$py" -c 'import boto3' 2>/dev/null; then
  "$py" - "$ep" "$bucket" "$key" "$size" "$part" "$par" <<'PY' >"$tmp/boto3"
import io, os, sys, time
import boto3
from boto3.s3.transfer import TransferConfig
ep, bucket, key, size, part, par = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
s3 = boto3.client("s3", endpoint_url=ep)
cfg = TransferConfig(multipart_chunksize=part << 20, max_concurrency=par, multipart_threshold=part << 20)
s3.upload_fileobj(io.BytesIO(os.urandom(1 << 20) * (size >> 20)), bucket, key, Config=cfg)
best = 0
for i in range(3):
    t = time.monotonic()
    s3.download_file(bucket, key, "/dev/shm/objbench-bench-boto3", Config=cfg)
    best = max(best, size / (time.monotonic() - t) / 1e6)
    os.remove("/dev/shm/objbench-bench-boto3")
print("%.0f" % best)
PY
  b=$(cat "$tmp/boto3")
  printf '%-40s %10s %8s\n' "boto3 download_file (best of 3)" "$b" "$(ratio "$ours" "$b")"
else
  echo "boto3: skipped (scripts/clients install)"
fi
if [[ -n $s5 ]]; then
  best=0
  for _ in 1 2 3; do
    t0=$(date +%s.%N)
    "$s5" --endpoint-url "$ep" cp --concurrency "$par" --part-size "$part" "s3://$bucket/$key" /dev/shm/objbench-bench-s5cmd >/dev/null
    t1=$(date +%s.%N)
    rm -f /dev/shm/objbench-bench-s5cmd
    best=$(python3 -c "import sys; print('%.0f' % max(float(sys.argv[1]), $size / (float(sys.argv[3]) - float(sys.argv[2])) / 1e6))" "$best" "$t0" "$t1")
  done
  printf '%-40s %10s %8s\n' "s5cmd cp (best of 3)" "$best" "$(ratio "$ours" "$best")"
else
  echo "s5cmd: skipped (not on PATH nor in .cache/bin)"
fi
if command -v iperf3 >/dev/null; then
  iperf3 -s -1 -p 5299 >/dev/null 2>&1 &
  sleep 0.5
  lo=$(iperf3 -c 127.0.0.1 -p 5299 -t 5 -P "$par" -J | python3 -c 'import json, sys; print("%.0f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 8e6))')
  printf '%-40s %10s %8s\n' "loopback, iperf3 -P $par" "$lo" "$(ratio "$ours" "$lo")"
else
  echo "iperf3: skipped (apt-get install iperf3)"
fi
