#!/usr/bin/env bash
# The lab's TCP against Linux's on the same emulated wire, side by side:
# medians of 5 transfers per case, lab and Linux, and the difference.
# Needs Linux and root (network namespaces and TUN devices).
#   bench/grid.sh [-ci] [-netns | -readtime] [-exact | -usual] [-counts] [-match 50Mbit] [-skip Mbit] [-runs 21] [-part 2/4] [-list]
set -euo pipefail
cd "$(dirname "$0")/.."
exec nice go run ./bench/grid "$@"
