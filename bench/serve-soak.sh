#!/usr/bin/env bash
# objbench serve under 10 concurrent /probe callers for DURATION seconds
# (default 60) on the lab: every call answered, memory flat, no goroutine
# leak. Prints RSS (from /proc) and goroutines (from /healthz) after a
# warm-up and at the end, and the answers by HTTP status.
#   bench/serve-soak.sh [DURATION] [EXTRA serve flags, e.g. --fault reset=50%]
set -euo pipefail
cd "$(dirname "$0")/.."
duration=${1:-60}
shift || true
tmp=$(mktemp -d)
go build -o "$tmp/objbench" ./cmd/objbench
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
"$tmp/objbench" serve --listen "127.0.0.1:$port" --db "$tmp/results.db" --count 50 "$@" >"$tmp/serve.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$tmp"' EXIT
base=http://127.0.0.1:$port
for _ in $(seq 100); do curl -fs "$base/healthz" >/dev/null && break; sleep 0.1; done
rss() { awk '/VmRSS/ {print $2/1024 " MB"}' "/proc/$pid/status"; }
goroutines() { curl -fs "$base/healthz" | python3 -c 'import json,sys; print(json.load(sys.stdin)["goroutines"])'; }
curl -fs -X POST "$base/probe" -d '{}' >/dev/null # warm-up: the pool, the first connection
printf '%-8s %-10s %s\n' when rss goroutines
printf '%-8s %-10s %s\n' start "$(rss)" "$(goroutines)"
end=$((SECONDS + duration))
for i in $(seq 10); do
  (while ((SECONDS < end)); do
    curl -s -o /dev/null -w '%{http_code}\n' --max-time 60 -X POST "$base/probe" -d '{}'
  done >"$tmp/caller$i.txt") &
done
# Every 15 s during the load: memory and goroutines should level off.
while ((SECONDS < end)); do
  sleep 15
  ((SECONDS <= end + 1)) && printf '%-8s %-10s %s\n' "+$((duration - end + SECONDS))s" "$(rss)" "$(goroutines)"
done
wait $(jobs -p | grep -v "^$pid$") 2>/dev/null || true
sleep 1
printf '%-8s %-10s %s\n' end "$(rss)" "$(goroutines)"
# Idle connections time out (the lab's --idle-timeout, default 20 s).
sleep 22
printf '%-8s %-10s %s\n' idle+22s "$(rss)" "$(goroutines)"
echo "answers by HTTP status:"
cat "$tmp"/caller*.txt | sort | uniq -c
curl -fs "$base/metrics" | grep -E '^objbench_(requests|errors)_total' || true
