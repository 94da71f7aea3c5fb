#!/usr/bin/env bash
# The one command that regenerates the published results: runs the filter
# suite (bench/filters: fpr_sweep, filter_bench, instructions.sh) and renders
# them with bench/summarize.py into docs/BENCHMARKS.md (the part between the
# RESULTS markers: tables and targets) and docs/benchmarks/ (the plots and
# results.md, every row). About 10-15 minutes on a quiet 2-core machine.
# Everything else of the run (JSON, CSV, gnuplot data) stays in the run
# folder.
#
#   bench/run.sh                  # everything; updates docs/BENCHMARKS.md
#   bench/run.sh --sizes=64K,16M  # a subset (extra flags go to filter_bench)
#
# Environment:
#   BENCH_CPU=1           core to pin to (default: the last one)
#   BENCH_REPS=5          interleaved repetitions per benchmark
#   BENCH_MIN_TIME=0.08   seconds per repetition
#   BENCH_UPDATE_DOCS=1   0: leave docs/BENCHMARKS.md and docs/benchmarks/
#                         alone, write only to the run folder
#   BENCH_OUT=DIR         run folder (default build/bench-runs/<time>)
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)

scripts/install-deps
build=build/release
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DBLOCKBLOOM_WERROR=ON >/dev/null
cmake --build "$build" -j "$(nproc)" --target filter_bench fpr_sweep probe_count

cpu=${BENCH_CPU:-$(($(nproc) - 1))}
reps=${BENCH_REPS:-5}
min_time=${BENCH_MIN_TIME:-0.08}
out=${BENCH_OUT:-build/bench-runs/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
echo "bench/run.sh: pinned to CPU $cpu, $reps repetitions of ${min_time}s; output in $out" >&2

taskset -c "$cpu" "$build/bench/filters/fpr_sweep" >"$out/fpr.csv"
taskset -c "$cpu" "$build/bench/filters/filter_bench" --reps="$reps" \
  --benchmark_min_time="$min_time" \
  --benchmark_out="$out/bench.json" --benchmark_out_format=json "$@" \
  2>&1 | tee "$out/console.txt"

# Instructions per probe (callgrind, objdump): counts, not timings, so the
# machine's load does not matter; skipped without valgrind.
instructions=()
if command -v valgrind >/dev/null; then
  bench/filters/instructions.sh "$build" >"$out/instructions.md"
  instructions=(--instructions "$out/instructions.md")
else
  echo "bench/run.sh: no valgrind, instructions per probe not counted" >&2
fi

elapsed=$(($(date +%s) - start))
command="bench/run.sh${*:+ $*}"
doc_args=()
dest="$out"
if [ "${BENCH_UPDATE_DOCS:-1}" = 1 ]; then
  dest=docs/benchmarks
  doc_args=(--publish docs/benchmarks --doc docs/BENCHMARKS.md)
fi
python3 bench/summarize.py --json "$out/bench.json" --fpr "$out/fpr.csv" \
  --out "$out" --reps "$reps" --command "$command" \
  --elapsed "$((elapsed / 60)) min $((elapsed % 60)) s" "${instructions[@]}" \
  "${doc_args[@]}"
echo "bench/run.sh: done in $((elapsed / 60)) min $((elapsed % 60)) s; tables and plots in $dest" >&2
