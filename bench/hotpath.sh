#!/usr/bin/env bash
# The client's cost per request, this tree against a base revision, measured
# in one run with the same benchmarks on both: allocations and bytes per op
# (exact), instructions per op (callgrind, when valgrind is installed:
# repeatable on a loaded machine, where time is not; counted with the
# collector off, since whole collections falling in or out of the measured
# window would swing it by 10%: their cost follows from B/op) and CPU per op
# (the process's rusage, median of the rounds: noisy under load).
#
#   bench/hotpath.sh [-base REV] [-n 3000] [-rounds 3] [-instructions] [-bench REGEXP]
#
# Benchmarks: BenchmarkRunner (internal/load: 1 KiB GET and PUT at
# concurrency 8 through the runner, nettrace and each S3 client, against the
# test MinIO of scripts/services; the -loop rows are the same requests from a
# plain loop on an untraced client, so that runner/loop is what the runner
# and nettrace add) and BenchmarkSDKCost (internal/storage/s3: the SDK alone
# against a canned in-process answer, no network). The base is
# checked out in a temporary git worktree and given this tree's benchmark
# files. Instructions per op are the difference of two callgrind runs
# (N and 4N ops, GOMAXPROCS=1, GOGC=off) divided by 3N: the set-up cancels
# out.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
base=${OBJBENCH_BASE_REV:-81953e5}
n=3000 rounds=3 instr= bench='Runner/|SDKCost(Get|Put)1KiB'
while [[ $# -gt 0 ]]; do
  case $1 in
    -base) base=$2; shift 2 ;;
    -n) n=$2; shift 2 ;;
    -rounds) rounds=$2; shift 2 ;;
    -instructions) instr=1; shift ;;
    -bench) bench=$2; shift 2 ;;
    *) echo "usage: bench/hotpath.sh [-base REV] [-n 3000] [-rounds 3] [-instructions] [-bench REGEXP]" >&2; exit 2 ;;
  esac
done
export OBJBENCH_CACHE=${OBJBENCH_CACHE:-$root/.cache}
eval "$("$root/scripts/services" env)"
[[ -n ${OBJBENCH_TEST_S3_ENDPOINT:-} ]] || { echo "hotpath: MinIO not running: scripts/services up" >&2; exit 1; }
if [[ -n $instr ]] && ! command -v valgrind >/dev/null; then
  echo "hotpath: -instructions needs valgrind (apt-get install valgrind)" >&2; exit 1
fi

tmp=$(mktemp -d)
cleanup() {
  git -C "$root" worktree remove --force "$tmp/base" >/dev/null 2>&1 || true
  rm -rf "$tmp"
}
trap cleanup EXIT
git -C "$root" worktree add --detach "$tmp/base" "$base" >/dev/null 2>&1
for f in internal/load/runner_bench_test.go internal/storage/s3/sdkcost_test.go; do
  cp "$root/$f" "$tmp/base/$f"
done
for side in base head; do
  dir=$root
  [[ $side == base ]] && dir=$tmp/base
  (cd "$dir" && go test -c -o "$tmp/$side-load.test" ./internal/load && go test -c -o "$tmp/$side-s3.test" ./internal/storage/s3)
done

# run SIDE NAME ARGS...: one go test binary run, its Benchmark lines.
run() {
  local side=$1 nm=$2
  shift 2
  local bin=$tmp/$side-load.test
  [[ $nm == SDKCost* ]] && bin=$tmp/$side-s3.test
  "$bin" -test.run - -test.bench "$(pattern "$nm")" -test.benchmem "$@" 2>&1 | grep '^Benchmark' || true
}
# Each benchmark by the parts of its name, anchored (go test matches each
# part of a name as a regular expression of its own).
names=()
for nm in Runner/sdk/get Runner/sdk-loop/get Runner/sdk/put Runner/minio/get Runner/minio-loop/get Runner/minio/put SDKCostGet1KiB SDKCostPut1KiB; do
  [[ $nm =~ $bench ]] && names+=("$nm")
done
pattern() { # Runner/sdk/get -> Runner/^sdk$/^get-
  local IFS=/ p
  read -ra p <<<"$1"
  if [[ ${#p[@]} -eq 3 ]]; then echo "^Benchmark${p[0]}\$/^${p[1]}\$/^${p[2]}-"; else echo "^Benchmark${p[0]}\$"; fi
}
: >"$tmp/rows"
for r in $(seq "$rounds"); do
  for nm in "${names[@]}"; do
    for side in base head; do # alternate, so that load drifts on both alike
      run "$side" "$nm" -test.benchtime "${n}x" | sed "s|^|$side $nm |" >>"$tmp/rows"
    done
  done
  echo "round $r of $rounds done" >&2
done
if [[ -n $instr ]]; then
  ir() { # ir SIDE NAME N: callgrind's instruction count of one run
    local bin=$tmp/$1-load.test
    [[ $2 == SDKCost* ]] && bin=$tmp/$1-s3.test
    GOGC=off GOMAXPROCS=1 GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
      "$bin" -test.run - -test.bench "$(pattern "$2")" -test.benchtime "$3x" 2>&1 | awk '/Collected/ {print $4}'
  }
  small=$((n / 4))
  for nm in "${names[@]}"; do
    for side in base head; do
      a=$(ir "$side" "$nm" "$small") b=$(ir "$side" "$nm" $((small * 4)))
      echo "$side $nm instr $(( (b - a) / (small * 3) ))" >>"$tmp/rows"
    done
  done
fi

echo
echo "base $(git -C "$root" rev-parse --short "$base") vs head $(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet || echo '+changes'), $n ops per run, $rounds rounds; load average $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v names="${names[*]}" '
  function median(s,   a, k, i, j, t) {
    k = split(s, a, " ")
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return k ? a[int((k + 1) / 2)] : ""
  }
  $3 == "instr" { ins[$1, $2] = $4; next }
  {
    for (i = 4; i <= NF; i++) {
      if ($i == "allocs/op") al[$1, $2] = al[$1, $2] " " $(i - 1)
      if ($i == "B/op") by[$1, $2] = by[$1, $2] " " $(i - 1)
      if ($i == "cpu-us/op") cu[$1, $2] = cu[$1, $2] " " $(i - 1)
    }
  }
  function row(what, b, h) {
    if (b == "" || h == "") return
    printf "  %-14s %12s %12s %7.2fx\n", what, b, h, (b > 0 ? h / b : 0)
  }
  END {
    k = split(names, ns, " ")
    printf "%-16s %12s %12s %8s\n", "benchmark", "base", "head", "head/base"
    for (i = 1; i <= k; i++) {
      n = ns[i]; print n
      row("allocs/op", median(al["base", n]), median(al["head", n]))
      row("B/op", median(by["base", n]), median(by["head", n]))
      row("instr/op noGC", ins["base", n], ins["head", n])
      row("cpu-us/op", median(cu["base", n]), median(cu["head", n]))
    }
  }' "$tmp/rows"
