# shellcheck shell=bash disable=SC2034,SC2154
# Sourced by bench/redis_client/run.sh and bench/redis_client/profile.sh (bash, set -euo pipefail,
# run from the repository root): the build of the bench, CPU pinning and a
# private redis-server.
#
#   redis_bench_build "$@"        # sets `bench`; consumes --build=DIR if first
#   redis_bench_cpus              # sets server_cpu, client_cpu, pin_server,
#                                 #   pin_client (arrays: taskset or nothing)
#   redis_bench_start_server DIR  # sets port, server_pid, server_dir; log in
#                                 #   DIR/redis.log
#
# `script` (the caller's name) prefixes the messages. The caller's EXIT trap
# must call redis_bench_stop_server.

# Builds redis_client_bench unless --build=DIR names an existing tree.
# Sets `bench` and `shift_build` (1 if --build=DIR was consumed).
redis_bench_build() {
  local build=
  shift_build=0
  if [ $# -gt 0 ] && [ "${1#--build=}" != "$1" ]; then
    build=${1#--build=}
    shift_build=1
  fi
  if [ -z "$build" ]; then
    build=build/release
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DBLOCKBLOOM_WERROR=ON >/dev/null
    cmake --build "$build" -j "$(nproc)" --target redis_client_bench
  fi
  bench="$build/bench/redis_client/redis_client_bench"
  [ -x "$bench" ] || {
    echo "$script: no $bench (libhiredis-dev missing?)" >&2
    exit 1
  }
}

# The CPUs this process may run on (its cpuset, not 0..nproc-1), one a line.
redis_bench_allowed_cpus() {
  python3 -c 'import os; print("\n".join(map(str, sorted(os.sched_getaffinity(0)))))'
}

# Server and client on the first two allowed CPUs (the same one if only one
# is allowed); REDIS_BENCH_SERVER_CPU / REDIS_BENCH_CLIENT_CPU override. If
# taskset cannot pin there, nothing is pinned (with a message).
redis_bench_cpus() {
  local cpus
  mapfile -t cpus < <(redis_bench_allowed_cpus 2>/dev/null || true)
  server_cpu=${REDIS_BENCH_SERVER_CPU:-${cpus[0]:-0}}
  client_cpu=${REDIS_BENCH_CLIENT_CPU:-${cpus[1]:-$server_cpu}}
  pin_server=()
  pin_client=()
  if ! command -v taskset >/dev/null; then
    echo "$script: no taskset: server and client not pinned" >&2
    server_cpu=any client_cpu=any
  elif ! taskset -c "$server_cpu" true 2>/dev/null ||
    ! taskset -c "$client_cpu" true 2>/dev/null; then
    echo "$script: cannot pin to CPUs $server_cpu and $client_cpu" \
      "(allowed: ${cpus[*]:-unknown}): server and client not pinned" >&2
    server_cpu=any client_cpu=any
  else
    pin_server=(taskset -c "$server_cpu")
    pin_client=(taskset -c "$client_cpu")
  fi
}

# Starts redis-server on a free loopback port, files and log in $1. Fails
# with its log if it exits or does not answer PING within 10 s; retries on a
# new port a few times if it exits (another process took the port first).
redis_bench_start_server() {
  server_dir=$1
  server_pid=
  local attempt
  for attempt in 1 2 3 4 5; do
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    # No persistence, loopback only; its output to a file (never to our pipe).
    "${pin_server[@]}" redis-server --port "$port" --bind 127.0.0.1 \
      --save '' --appendonly no --protected-mode no --daemonize no \
      --dir "$server_dir" --logfile "$server_dir/redis.log" >/dev/null 2>&1 &
    server_pid=$!
    local i
    for i in $(seq 200); do
      if ! kill -0 "$server_pid" 2>/dev/null; then
        break
      fi
      # Ours (INFO's process_id), not another server that took the port.
      if redis-cli -p "$port" info server 2>/dev/null |
        grep -Eq "^process_id:${server_pid}[[:space:]]*\$"; then
        return 0
      fi
      sleep 0.05
    done
    if kill -0 "$server_pid" 2>/dev/null; then
      echo "$script: redis-server did not answer on port $port within 10 s:" >&2
      cat "$server_dir/redis.log" >&2 || true
      exit 1
    fi
    wait "$server_pid" 2>/dev/null || true
    server_pid=
    echo "$script: redis-server exited (attempt $attempt, port $port):" >&2
    cat "$server_dir/redis.log" >&2 || true
  done
  echo "$script: redis-server did not start" >&2
  exit 1
}

# Checks the server still answers (e.g. before each step of a long run).
redis_bench_check_server() {
  if [ -z "$server_pid" ] || ! kill -0 "$server_pid" 2>/dev/null ||
    ! redis-cli -p "$port" ping 2>/dev/null | grep -q PONG; then
    echo "$script: redis-server is gone:" >&2
    cat "$server_dir/redis.log" >&2 || true
    exit 1
  fi
}

redis_bench_stop_server() {
  if [ -n "${server_pid:-}" ]; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=
  fi
}
