#!/usr/bin/env bash
# The lab's emulated network against its targets, side by side in one run:
# one 32 MiB GET stream at 2 ms with no rate cap (>= 300 MB/s) against
# loopback TCP, and the RSS of 100 connections held open (< 50 MB).
#   bench/network.sh [-rounds 5] [-conns 100]
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./bench/network "$@"
