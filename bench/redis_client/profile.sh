#!/usr/bin/env bash
# Client instructions per query and per add of each Redis contender
# (bench/redis_client/), counted with callgrind: where the client's time
# goes, independent of the machine's load. Starts its own server like
# bench/redis_client/run.sh; about 2 minutes.
#
#   bench/redis_client/profile.sh              # builds Release
#   bench/redis_client/profile.sh --build=DIR  # an existing build tree
#
# Environment: REDIS_PROFILE_KEYS=20000 (keys inserted; as many absent keys
# are queried, so each Query phase counts 2 x keys queries: the inserted
# keys' check, then the absent keys).
#
# Valgrind 3.19 cannot decode RDTSCP, which libhwy's static initializer runs
# (hwy::platform::TimerResolution); a stub preloaded in its place lets the
# bench start under valgrind. Nothing else of Highway's timer is used here.
set -euo pipefail
cd "$(dirname "$0")/../.."

script=bench/redis_client/profile.sh
# shellcheck source=bench/redis_client/server.sh
. bench/redis_client/server.sh
redis_bench_build "$@"
keys=${REDIS_PROFILE_KEYS:-20000}
command -v valgrind >/dev/null || { echo "$script: no valgrind" >&2; exit 1; }

dir=$(mktemp -d /tmp/blockbloom-redis-profile-XXXXXX)
cleanup() {
  redis_bench_stop_server
  rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cat >"$dir/stub.cc" <<'EOF'
#include <cstdint>
namespace hwy::platform {
__attribute__((visibility("default"))) uint64_t TimerResolution() { return 1; }
}  // namespace hwy::platform
EOF
c++ -O2 -shared -fPIC -o "$dir/libhwy_timer_stub.so" "$dir/stub.cc"

redis_bench_cpus
redis_bench_start_server "$dir"

count() {  # contender-flags phase -> instructions in that phase per key
  local out="$dir/callgrind.out"
  redis_bench_check_server
  LD_PRELOAD="$dir/libhwy_timer_stub.so" "${pin_client[@]}" \
    valgrind --tool=callgrind --callgrind-out-file="$out" \
    "--toggle-collect=*::$2(*" "$bench" --url="redis://127.0.0.1:$port" \
    --keys="$keys" --queries="$keys" --repetitions=1 --latency_samples=1 \
    $1 >/dev/null 2>"$dir/valgrind.log" ||
    { cat "$dir/valgrind.log" >&2; exit 1; }
  local ir
  ir=$(callgrind_annotate "$out" | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1; exit}')
  local per=$keys
  [ "$2" = Query ] && per=$((2 * keys))
  echo $((ir / per))
}

echo "Client instructions per key (callgrind; $keys keys, $((2 * keys)) queries), hashing, RESP and probing included"
echo
echo "| contender | instructions per query | instructions per add |"
echo "|---|---|---|"
for c in "gozero" "redisson" "getrange" "getrange2" \
  "blockbloom --our_depths=32" "blockbloom --our_depths=64"; do
  q=$(count "--contenders=$c" Query)
  a=$(count "--contenders=$c" Add)
  echo "| ${c/ --our_depths=/, batch } | $q | $a |"
done
