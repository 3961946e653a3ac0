#!/usr/bin/env bash
# What each client library's retries cost under a throttling lab: every
# library of examples/clients in its default retry mode and its adaptive
# one (where it has one), at three offered rates, beside its documented
# policy. See bench/retries.py for the columns; takes minutes (Azure's first
# retry waits 15 to 21 s); not part of scripts/test.
#
#   bench/retries.sh                              # limit 50 writes/s; 25, 50, 100 objects/s offered
#   bench/retries.sh --limit-rate 100 --rates 50,100,200 --only boto3
#   bench/retries.sh --json > rows.json
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export PATH=${OBJBENCH_CACHE:-$root/.cache}/npm/node_modules/.bin:$PATH # azurite-blob, when scripts/services installed it
exec python3 "$root/bench/retries.py" "$@"
