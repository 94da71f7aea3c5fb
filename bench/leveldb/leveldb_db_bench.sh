#!/usr/bin/env bash
# LevelDB 1.23's own db_bench with its built-in Bloom filter and with
# blockbloom's policy, side by side. db_bench is built from LevelDB's source
# (Debian's source package, fetched and built by
# tests/leveldb/leveldb_upstream/common.sh) with one flag added,
# --blockbloom=1, which makes it use
# blockbloom::NewLevelDBFilterPolicy(FLAGS_bloom_bits) instead of
# NewBloomFilterPolicy(FLAGS_bloom_bits)
# (tests/leveldb/leveldb_upstream/db_bench_blockbloom.patch): one program
# for both sides.
#
#   bench/leveldb/leveldb_db_bench.sh [--build=DIR] [--rounds=R] [--cpu=C]
#                                     [--reads_only] [-- DB_BENCH_FLAGS...]
#
#   --build=DIR  blockbloom build tree whose LevelDB adapter is linked
#                (default build/release; as tests/leveldb/leveldb_upstream/run)
#   --rounds=R   rounds (default 5); each round runs builtin, then blockbloom,
#                each in a fresh DB folder
#   --cpu=C      core to pin to with taskset (default 1)
#   --reads_only each side's DB is filled and compacted once (untimed), then
#                each round times only readrandom,readmissing on the existing
#                DBs (--use_existing_db=1): a round takes a few seconds, so
#                many rounds (e.g. --rounds=21) fit in little locked time and
#                the paired ratio of the reads settles on a noisy machine
#   --summarize=DIR  only print the summary of an earlier run's folder
#   DB_BENCH_FLAGS  appended after the defaults, so they override them:
#                --benchmarks=fillrandom,compact,readrandom,readmissing
#                --num=1000000 --reads=500000 --bloom_bits=10
#
# Each round holds the machine's quiet lock exclusively (flock -x
# /tmp/bb-quiet.lock) while its two runs are timed; builds take it shared.
# About 30-40 s per round with the defaults on a 2-core machine.
#
# Prints, per benchmark, the median micros/op and ops/s of each side with
# min-max over the rounds, and blockbloom/builtin ratios of the medians;
# then each side's filter blocks, read from the compacted DB
# (filter_block_sizes: bytes and bits per key). Raw output in
# build/bench-runs/leveldb-db-bench-<time>/ (BENCH_OUT=DIR to choose).
# Exits 77 (SKIPPED) when LevelDB's source cannot be fetched.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
LU_REPO=$(cd "$here/../.." && pwd)
LU_NAME=leveldb_db_bench
# shellcheck source=../../tests/leveldb/leveldb_upstream/common.sh
source "$LU_REPO/tests/leveldb/leveldb_upstream/common.sh"

rounds=5
cpu=1
summarize=
reads_only=0
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build=*) LU_BB_BUILD=${1#--build=} ;;
    --rounds=*) rounds=${1#--rounds=} ;;
    --cpu=*) cpu=${1#--cpu=} ;;
    --summarize=*) summarize=${1#--summarize=} ;;
    --reads_only) reads_only=1 ;;
    --) shift; extra=("$@"); break ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "leveldb_db_bench: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
LU_CACHE=${LEVELDB_UPSTREAM_CACHE:-}
summary() {  # folder rounds
  python3 "$here/leveldb_db_bench_summary.py" "$1" "$2" | tee "$1/summary.txt"
  echo "raw output: $1"
}
if [ -n "$summarize" ]; then
  # Complete rounds only (an interrupted run leaves a lone builtin file).
  n=0
  while [ -f "$summarize/blockbloom.$((n + 1)).txt" ]; do n=$((n + 1)); done
  summary "$(cd "$summarize" && pwd)" "$n"
  exit 0
fi
flags=(--benchmarks=fillrandom,compact,readrandom,readmissing --num=1000000
  --reads=500000 --bloom_bits=10 ${extra[@]+"${extra[@]}"})

t0=$SECONDS
lu_fetch
lu_build db_bench filter_block_sizes
lu_check_one_leveldb "$LU_OUT/db_bench"
lu_log "source and build ready in $((SECONDS - t0)) s"

out=${BENCH_OUT:-$LU_REPO/build/bench-runs/leveldb-db-bench-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/leveldb_db_bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
{
  echo "command: bench/leveldb/leveldb_db_bench.sh --rounds=$rounds --cpu=$cpu$([ "$reads_only" = 1 ] && echo ' --reads_only')${extra[*]:+ -- ${extra[*]}}"
  echo "db_bench flags: ${flags[*]}"
  bb_src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$LU_BB_BUILD/CMakeCache.txt")
  echo "blockbloom build tree: $LU_BB_BUILD (source $bb_src at" \
    "$(git -C "$bb_src" describe --always --dirty 2>/dev/null || echo '?'))"
  echo "machine: $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
} | tee "$out/README"

# One timed run: db_bench pinned to $cpu in a fresh DB folder, then the
# filter blocks of the DB it leaves (untimed). With --reads_only, the reads
# on the side's DB filled before the rounds.
run_one() {
  local side=$1 round=$2 blockbloom=0
  if [ "$side" = blockbloom ]; then blockbloom=1; fi
  if [ "$reads_only" = 1 ]; then
    taskset -c "$cpu" "$LU_OUT/db_bench" "${flags[@]}" --blockbloom=$blockbloom \
      --benchmarks=readrandom,readmissing --use_existing_db=1 \
      --db="$tmp/db-$side" >"$out/$side.$round.txt" 2>"$out/$side.$round.stderr"
    cat "$out/$side.filters" >>"$out/$side.$round.txt"
    return
  fi
  local db=$tmp/db-$side-$round
  rm -rf "$db"
  taskset -c "$cpu" "$LU_OUT/db_bench" "${flags[@]}" --blockbloom=$blockbloom \
    --db="$db" >"$out/$side.$round.txt" 2>"$out/$side.$round.stderr"
  "$LU_OUT/filter_block_sizes" "$db" >>"$out/$side.$round.txt"
  rm -rf "$db"
}

if [ "$reads_only" = 1 ]; then
  # The DBs are read with the policy that wrote them (a DB read with another
  # policy's name would simply use no filter).
  for side in builtin blockbloom; do
    lu_log "filling the $side DB (untimed)"
    blockbloom=0
    if [ "$side" = blockbloom ]; then blockbloom=1; fi
    "$LU_OUT/db_bench" "${flags[@]}" --blockbloom=$blockbloom \
      --benchmarks=fillrandom,compact --db="$tmp/db-$side" \
      >"$out/$side.fill.txt" 2>/dev/null
    "$LU_OUT/filter_block_sizes" "$tmp/db-$side" >"$out/$side.filters"
  done
fi

exec {lockfd}>>"$LU_LOCK"
for round in $(seq 1 "$rounds"); do
  lu_log "round $round/$rounds: builtin, then blockbloom (waiting for the exclusive lock)"
  # Both runs of a round under one exclusive hold, so that no one's build
  # runs between the two sides of a pair; released between rounds so that
  # no hold lasts more than a minute or so.
  flock -x "$lockfd"
  t0=$SECONDS
  run_one builtin "$round"
  run_one blockbloom "$round"
  flock -u "$lockfd"
  lu_log "round $round done in $((SECONDS - t0)) s"
done
exec {lockfd}>&-

summary "$out" "$rounds"
