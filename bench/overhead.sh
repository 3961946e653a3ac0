#!/usr/bin/env bash
# Tracing overhead: objbench's traced runner versus a plain net/http loop (and
# an untraced SDK loop) on the same embedded server, in one run.
#   bench/overhead.sh [-c 8] [-n 20000] [-rounds 3] [-interval 100ms]
# The last two rows: the runner with its results per interval, without and
# with the results database's journal written at each one (objbench run's).
set -euo pipefail
cd "$(dirname "$0")/.."
exec go run ./bench/overhead "$@"
