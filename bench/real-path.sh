#!/usr/bin/env bash
# What explain --real costs a program moving a lot of data: curl downloads
# SIZE bytes from a server on the host's loopback through the real path at
# RATE each way, beside the same link without objbench's capture and
# decoder, and beside curl on the host alone; interleaved, medians of N.
# Prints each row's throughput, explain --real's share of the wire only's
# (target at least 95% at 1 Gbit) and objbench's peak memory meanwhile
# (target under 64 MB). Needs root (network namespaces, a TUN device in
# objbench's own namespace) and curl.
#   bench/real-path.sh [SIZE [RATE [N]]]     defaults: 1GiB 1Gbit 3 (10GiB for the memory bound)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
go run ./bench/realpath -size "${1:-1GiB}" -rate "${2:-1Gbit}" -n "${3:-3}"
