#!/usr/bin/env bash
# Shared filters in Redis, side by side (docs/BENCHMARKS.md, "Shared filters
# in Redis"): starts its own redis-server on a free loopback port pinned to
# one core, runs redis_client_bench pinned to the other, stops the server
# and prints the table. About 10 minutes with the defaults (1M keys, 1M
# absent queries, 5 repetitions; go-zero's Lua script takes most of it).
#
#   bench/redis_client/run.sh                  # builds Release, full run
#   bench/redis_client/run.sh --keys=100000    # extra flags go to the bench
#   bench/redis_client/run.sh --build=DIR ...  # use an existing build tree
#
# Environment:
#   REDIS_BENCH_SERVER_CPU     core of redis-server (default: the first CPU
#                              this process may use, `taskset -pc $$`)
#   REDIS_BENCH_CLIENT_CPU     core of the bench, the client (default: the
#                              second allowed CPU; the first if only one)
#   REDIS_BENCH_RESULTS=PREFIX writes PREFIX.csv and PREFIX.md (default
#                              build/bench-runs/redis-<time>/redis); empty:
#                              write nothing (the ctest smoke run)
# Without taskset, or if it cannot pin there, nothing is pinned (a message).
set -euo pipefail
cd "$(dirname "$0")/../.."

script=bench/redis_client/run.sh
# shellcheck source=bench/redis_client/server.sh
. bench/redis_client/server.sh
redis_bench_build "$@"
if [ "$shift_build" = 1 ]; then shift; fi
redis_bench_cpus
results=${REDIS_BENCH_RESULTS-build/bench-runs/redis-$(date +%Y%m%d-%H%M%S)/redis}

dir=$(mktemp -d /tmp/blockbloom-redis-bench-XXXXXX)
cleanup() {
  redis_bench_stop_server
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
redis_bench_start_server "$dir"

echo "$script: $(redis-server --version | cut -d' ' -f3) on port $port," \
  "server on CPU $server_cpu, client on CPU $client_cpu" >&2
extra=()
if [ -n "$results" ]; then
  mkdir -p "$(dirname "$results")"
  extra=(--csv="$results.csv" --markdown="$results.md")
fi
"${pin_client[@]}" "$bench" --url="redis://127.0.0.1:$port" \
  "${extra[@]}" "$@"
if [ -n "$results" ]; then
  echo "$script: results in $results.csv and $results.md" >&2
fi
