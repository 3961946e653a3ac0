#!/usr/bin/env bash
# What the lab adds to 1 KiB GET TTFB: direct server vs lab local vs the emulated network at 0 ms.
#   bench/lab-overhead.sh [-n 3000] [-rounds 3]
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./bench/laboverhead "$@"
