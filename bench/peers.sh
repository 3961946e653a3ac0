#!/usr/bin/env bash
# objbench against MinIO's warp v1.3.1, side by side on one MinIO in one run:
# GET 1 KiB c8, GET 32 MiB c1 and c20, PUT 1 KiB c8, PUT 32 MiB c1, objbench
# with each S3 client (--client sdk and minio). Prints
# ops/s, MB/s (10^6 bytes), each client's own CPU seconds per 1,000 ops and per
# GB, and the ratios to warp. Takes minutes; not part of scripts/test.
#
#   bench/peers.sh [-duration 10s] [-repeats 2] [-rows 1,3]
#   OBJBENCH_BASE_REV=<git rev> bench/peers.sh   # also objbench at that revision
#
# warp is built once from ../shared/peers (beside the project) into
# $OBJBENCH_CACHE/peers/warp; MinIO is the one scripts/services runs (started
# here, and stopped again, when it is not running).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export OBJBENCH_CACHE=${OBJBENCH_CACHE:-$root/.cache}

# The peers folder sits beside the project: beside this worktree, or beside
# the main checkout when this is a git worktree elsewhere.
peers=${OBJBENCH_PEERS:-}
if [[ -z $peers ]]; then
  for cand in "$root/../shared/peers" \
    "$(cd "$root" && git rev-parse --path-format=absolute --git-common-dir 2>/dev/null)/../../shared/peers"; do
    if [[ -x $cand/build-warp ]]; then peers=$(cd "$cand" && pwd); break; fi
  done
fi
[[ -n $peers && -x $peers/build-warp ]] || { echo "peers: no shared/peers/build-warp beside $root (set OBJBENCH_PEERS)" >&2; exit 1; }
warp=$("$peers/build-warp" "$OBJBENCH_CACHE/peers/warp")

tmp=$(mktemp -d)
started_minio=
cleanup() {
  rm -rf "$tmp"
  if [[ -n $started_minio ]]; then OBJBENCH_SERVICES=minio "$root/scripts/services" down >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT
if OBJBENCH_SERVICES=minio "$root/scripts/services" status >/dev/null 2>&1; then
  eval "$(OBJBENCH_SERVICES=minio "$root/scripts/services" env)"
else
  eval "$(OBJBENCH_SERVICES=minio "$root/scripts/services" up)"
  started_minio=1
fi

echo "building objbench" >&2
(cd "$root" && go build -o "$tmp/objbench-head" ./cmd/objbench)
bins=(-objbench "sdk=$tmp/objbench-head" -objbench "minio=$tmp/objbench-head --client minio")
if [[ -n ${OBJBENCH_BASE_REV:-} ]]; then
  echo "building objbench at $OBJBENCH_BASE_REV" >&2
  mkdir "$tmp/base"
  (cd "$root" && git archive "$OBJBENCH_BASE_REV" | tar -x -C "$tmp/base")
  (cd "$tmp/base" && go build -o "$tmp/objbench-base" ./cmd/objbench)
  bins=(-objbench "base=$tmp/objbench-base" "${bins[@]}") # the SDK client at that revision
fi
(cd "$root" && go build -o "$tmp/peers" ./bench/peers)
"$tmp/peers" -warp "$warp" "${bins[@]}" -endpoint "$OBJBENCH_TEST_S3_ENDPOINT" "$@"
