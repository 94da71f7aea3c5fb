#!/usr/bin/env bash
# Instructions per probe of blockbloom, the Parquet split block filter and
# FastLocalBloom (docs/BENCHMARKS.md, "Instructions per probe"). Counts are
# independent of the machine's load, unlike timings.
#
#   bench/filters/instructions.sh [BUILD_DIR]  # default build/release (built)
#
# 1. callgrind (valgrind --tool=callgrind) over probe_count: a 1 MiB filter,
#    10 bits/key, 200,000 absent pre-hashed probes through each filter's
#    public probe, single and in batches of 32 and 1024, collecting only
#    inside the probe loop; total / probes. valgrind has no AVX-512, so
#    blockbloom and Parquet are forced to AVX2 (and, for blockbloom, to every
#    other target the build has); FastLocalBloom runs its AVX2 probe.
#    "loop only" is the same loop around a probe that returns false: the
#    harness's share of every row.
# 2. AVX-512, which valgrind cannot run: the single-probe kernels'
#    instructions from entry to ret in the disassembly (objdump) of the AVX3
#    target, the call into them not included.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/release}
if [ $# -eq 0 ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j "$(nproc)" --target probe_count >/dev/null
fi
prog="$build/bench/filters/probe_count"
probes=200000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Valgrind 3.19 cannot decode RDTSCP, which libhwy's static initializer runs
# (hwy::platform::TimerResolution); a stub preloaded in its place lets the
# program start under valgrind (as bench/redis_client/profile.sh does).
cat >"$tmp/stub.cc" <<'STUB'
#include <cstdint>
namespace hwy::platform {
__attribute__((visibility("default"))) uint64_t TimerResolution() { return 1; }
}  // namespace hwy::platform
STUB
c++ -O2 -shared -fPIC -o "$tmp/libhwy_timer_stub.so" "$tmp/stub.cc"

# Instructions per probe of one configuration under callgrind.
count() {
  local out="$tmp/cg.out"
  LD_PRELOAD="$tmp/libhwy_timer_stub.so" \
    valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$out" \
    "$prog" --probes=$probes "$@" >"$tmp/stdout" 2>"$tmp/stderr" || {
    cat "$tmp/stderr" >&2
    return 1
  }
  local total
  total=$(awk '/^(summary|totals):/ {print $2; exit}' "$out")
  awk -v t="$total" -v n=$probes 'BEGIN {printf "%.1f", t / n}'
}

echo "callgrind: instructions per probe, 1 MiB filter, 10 bits/key, $probes absent pre-hashed probes, the loop included"
echo
echo "| filter | target | single | batch32 | batch1024 |"
echo "|---|---|---|---|---|"
row() {
  local label=$1 target=$2
  shift 2
  local cells=()
  for op in single batch32 batch1024; do
    cells+=("$(count "$@" --op=$op)")
  done
  echo "| $label | $target | ${cells[0]} | ${cells[1]} | ${cells[2]} |"
}
row "loop only (probe returns false)" - --filter=none
for t in AVX2 SSE4 SSSE3 EMU128 SCALAR; do
  if "$prog" --probes=1 --filter=blockbloom --target=$t >/dev/null 2>&1; then
    row blockbloom $t --filter=blockbloom --target=$t
  fi
done
row "Parquet SBBF" AVX2 --filter=parquet --target=AVX2
row "FastLocalBloom" AVX2 --filter=fastlocal

# The AVX-512 kernels, statically: instructions from the entry of a function
# to its first ret (the single probes are straight-line code).
kernel_count() {
  local object=$1 symbol=$2
  objdump -d --no-show-raw-insn -C "$object" | awk -v pat="$symbol" '
    index($0, pat) && /^[0-9a-f]+ <.*>:$/ {p = 1; next}
    p && /^$/ {exit}
    p {n++; if ($2 ~ /^ret/) {print n; exit}}'
}
probe_o=$(find "$build" -path '*/src/core/*' -name 'probe.cc.o' | head -1)
parquet_o=$(find "$build" -name 'parquet_sbbf.cc.o' | head -1)
if [ -n "$probe_o" ] && [ -n "$parquet_o" ]; then
  echo
  echo "AVX-512 (objdump of the AVX3 target): instructions of the single-probe kernel, entry to ret"
  echo
  echo "| filter | kernel | instructions |"
  echo "|---|---|---|"
  echo "| blockbloom | N_AVX3::ProbeHash | $(kernel_count "$probe_o" 'N_AVX3::ProbeHash(') |"
  echo "| Parquet SBBF | N_AVX3::Probe | $(kernel_count "$parquet_o" 'N_AVX3::Probe(') |"
fi
