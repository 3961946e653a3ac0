#!/usr/bin/env bash
# The size sweep of ranged downloads, the full grid: for each object size, one stream against
# every part size (4, 8, 16, 32 MiB) × part concurrency (4, 8, 16) below it, and the
# range-sweep finding that names the fastest configuration per size (run --workload ranges).
#
#   bench/range-sweep.sh [lab|minio] [SIZES] [COUNT]   (defaults: lab 64MiB,256MiB,1GiB 2)
#
# minio needs the test services' MinIO (OBJBENCH_TEST_S3_ENDPOINT, _ACCESS_KEY, _SECRET_KEY;
# see scripts/services). Prints a row per step (MB/s of one object at a time, the gain over one
# stream) and each size's finding.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
where=${1:-lab} sizes=${2:-64MiB,256MiB,1GiB} count=${3:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$root" && go build -o "$tmp/objbench" ./cmd/objbench)
export XDG_DATA_HOME=$tmp/data # a fresh results database
target=(lab)
if [[ $where == minio ]]; then
  if [[ -z ${OBJBENCH_TEST_S3_ENDPOINT:-} ]]; then
    echo "minio: skipped (no OBJBENCH_TEST_S3_ENDPOINT: start scripts/services)"
    exit 0
  fi
  export AWS_ACCESS_KEY_ID=$OBJBENCH_TEST_S3_ACCESS_KEY AWS_SECRET_ACCESS_KEY=$OBJBENCH_TEST_S3_SECRET_KEY AWS_REGION=us-east-1
  target=(s3://objbench-bench --endpoint "$OBJBENCH_TEST_S3_ENDPOINT" --create-bucket)
fi
"$tmp/objbench" run "${target[@]}" --workload ranges --sizes "$sizes" --size-count "$count" \
  --timeout 10m --duration 10m --no-save -q --json -o "$tmp/sweep.json"
python3 - "$tmp/sweep.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
stream = {}
print(f"{'size':>8} {'parts':>8} {'at once':>8} {'MB/s':>8} {'p50 ms':>8} {'vs stream':>10}")
for r in d["results"]:
    if r["workload"] != "ranges" or r["op"] != "get" or not r["count"]:
        continue
    p = r.get("parts")
    mbps = r["aggregate_mb_per_s"]
    if p is None:
        stream[r["size_bytes"]] = mbps
    base = stream.get(r["size_bytes"], 0)
    print(f"{r['size_bytes'] >> 20:>6}Mi {(str(p['size_bytes'] >> 20) + 'Mi') if p else 'stream':>8} {p['parallel'] if p else 1:>8}"
          f" {mbps:>8.0f} {r['total_ms']['p50']:>8.1f} {(mbps / base if base else 0):>9.2f}x")
for f in d["findings"]:
    if f["id"].startswith("range-sweep-"):
        print(f"{f['id']}: {f['text']}")
PY
