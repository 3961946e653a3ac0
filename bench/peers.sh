#!/usr/bin/env bash
# objbench against MinIO's warp v1.3.1, side by side on one MinIO in one run:
# GET 1 KiB c8, GET 32 MiB c1 and c20, PUT 1 KiB c8, PUT 32 MiB c1, objbench
# with each S3 client (--client sdk and minio; comparisons with warp are
# with its own client library, --client minio). Prints the median of the
# rounds: ops/s, MB/s (10^6 bytes), each client's own CPU seconds per 1,000
# ops and per GB, and the ratios to warp. Takes minutes (3 rounds of 5 rows
# of 10 s for 3 clients: about 10); not part of scripts/test.
#
#   bench/peers.sh [-duration 10s] [-repeats 3] [-rows 1,3]
#   OBJBENCH_BASE_REV=<git rev> bench/peers.sh   # also objbench at that revision
#
# warp is built once from ../shared/peers (beside the project) into
# $OBJBENCH_CACHE/peers/warp; MinIO is scripts/services' pinned binary, run
# here on a port and data folder of its own and stopped at the end.
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
minio_pid= started_services=
cleanup() {
  if [[ -n $minio_pid ]]; then kill "$minio_pid" 2>/dev/null || true; wait "$minio_pid" 2>/dev/null || true; fi
  if [[ -n $started_services ]]; then OBJBENCH_SERVICES=minio "$root/scripts/services" down >/dev/null 2>&1 || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
# A MinIO of our own, started as scripts/services starts its one (same pinned
# binary, same settings), so that other users of the shared one neither
# restart it under the measurement nor load it. Without the binary in the
# cache, scripts/services installs and starts the shared one, which is used.
if [[ ! -x $OBJBENCH_CACHE/bin/minio ]]; then
  if ! OBJBENCH_SERVICES=minio "$root/scripts/services" status >/dev/null 2>&1; then started_services=1; fi
  eval "$(OBJBENCH_SERVICES=minio "$root/scripts/services" up)"
else
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
  console=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
  user=peers$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')
  password=$(od -An -N18 -tx1 /dev/urandom | tr -d ' \n')
  mkdir "$tmp/minio-data"
  MINIO_ROOT_USER=$user MINIO_ROOT_PASSWORD=$password MINIO_BROWSER=off MINIO_UPDATE=off CI=false \
    "$OBJBENCH_CACHE/bin/minio" server --quiet --address "127.0.0.1:$port" --console-address "127.0.0.1:$console" \
    "$tmp/minio-data" >"$tmp/minio.log" 2>&1 </dev/null &
  minio_pid=$!
  for _ in $(seq 300); do
    curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:$port/minio/health/ready" 2>/dev/null && break
    kill -0 "$minio_pid" 2>/dev/null || { echo "peers: minio exited:" >&2; tail -5 "$tmp/minio.log" >&2; exit 1; }
    sleep 0.2
  done
  export OBJBENCH_TEST_S3_ENDPOINT=http://127.0.0.1:$port OBJBENCH_TEST_S3_ACCESS_KEY=$user OBJBENCH_TEST_S3_SECRET_KEY=$password
  echo "peers: own minio on 127.0.0.1:$port" >&2
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
