#!/usr/bin/env bash
# `objbench runs` over 10,000 saved runs against the sqlite3 shell running
# the same query on the same file: whole processes, alternated, medians.
# Target: objbench within a factor of 2 of sqlite3.
#   bench/runs-query.sh [-n 10000] [-rounds 20]
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/objbench" ./cmd/objbench
go run ./bench/runsquery -objbench "$tmp/objbench" "$@"
