#!/usr/bin/env bash
# RocksDB's own db_bench with its built-in filters and with blockbloom's, as
# a RocksDB user runs it: the installed db_bench (Debian's rocksdb-tools, or
# DB_BENCH=PATH for another release), each policy named in an OPTIONS file
# (--options_file), blockbloom's RocksDB adapter built as a shared library
# and preloaded (docs/ROCKSDB.md, "db_bench with blockbloom").
#
#   bench/rocksdb/rocksdb_db_bench.sh [--rounds=R] [--cpu=C] [--num=N]
#       [--reads=N] [--tables=T] [--sides=LIST] [--no_prefix]
#       [--summarize=DIR]
#
#   --rounds=R   rounds of the reads (default 3); each round runs every side
#                in turn, in another order each round
#   --cpu=C      core to pin db_bench to with taskset (default 1)
#   --num=N      keys (default 2000000, 16-byte keys, 100-byte values)
#   --reads=N    reads per benchmark (default 400000)
#   --tables=T   tables of the compacted tree (default 20)
#   --sides=LIST which sides, comma-separated (default all below)
#   --no_prefix  without the prefix seek workload (below)
#   --summarize=DIR  only print the summary of an earlier run's folder
#   --instructions   count instructions instead of timing (below)
#
# Sides (the name, the filter_policy of its OPTIONS file):
#   builtin        bloomfilter:10:false   RocksDB's Bloom filter (FastLocalBloom)
#   rocksdb_ribbon ribbonfilter:10        RocksDB's Ribbon filter
#   blockbloom     blockbloom.v1:10       the default
#   ribbon_from_1  blockbloom.v1:10:ribbon_from_level:1
#   learned        blockbloom.v1:10:ribbon_from_level:1:level_aware:1:level_learned:1:ribbon_saves:false_reads
#                  the learned plan over both kinds (blocked from L0, ribbons
#                  from L1), each level's kind and bits at the budget's memory
#   learned_blocked  blockbloom.v1:10:level_aware:1:level_learned:1
#                  the learned plan of the blocked kind alone
# and any blockbloom side with @TARGET appended (blockbloom@AVX3): the same
# filters, the probe's SIMD target forced with BLOCKBLOOM_SIMD_TARGET=TARGET
# (SetSimdTarget's names); without it, the library's rule chooses.
#
# Every side with the same filter policy reads the same DB. Each DB is
# filled with the same keys (fillrandom, --seed=1, auto compactions off) and
# compacted into one level of about T tables (target_file_size_base), so
# every policy has the same tree; then each round runs readrandom,
# readmissing and multireadrandom (MultiGet, batches of 32) on it
# (--use_existing_db), with statistics on: the filter tickers
# (rocksdb.bloom.filter.*) are in the summary. The fills are not timed.
#
# The prefix seek workload: a second DB per policy whose OPTIONS add a
# prefix extractor (prefix_extractor=rocksdb.FixedPrefix.12, whole-key
# filtering on, RocksDB's default: each filter holds the keys and their
# prefixes), filled with 20-byte keys of 12-byte prefixes, about 4 keys a
# prefix (db_bench's --prefix_size=12 --keys_per_prefix=4), compacted the
# same way. Each round then runs seekrandom on it twice (Seek only, no
# Next; RocksDB checks the seek key's prefix against the table's filter
# first): `prefixseek` to keys of prefixes that exist, `prefixseekmissing`
# to prefixes that do not (--seek_missing_prefix: byte 8 set to '1'),
# which the filters rule out. The prefix tickers
# (rocksdb.bloom.filter.prefix.*) are in the summary.
#
# Each round holds the machine's quiet lock exclusively (flock -x
# /tmp/bb-quiet.lock) while its runs are timed. About 4 minutes to fill with
# the defaults on a 2-core machine, then about a minute per round.
#
# With --instructions, each benchmark runs alone under callgrind (valgrind),
# once with --reads=R and once with 3R (R from --reads; default 20000 here,
# and --num 200000, sides builtin,blockbloom): instructions per key = the
# difference of the two runs' totals / 2R, which leaves out the start-up.
# Counts, not times: no exclusive lock, no rounds. Also, per key, the
# inclusive instructions of each function named *MayMatch* (the filter
# readers' probes, hashing included): a Get probes one table's filter in
# this tree of one level. Under valgrind the probe runs at most AVX2
# (valgrind has no AVX-512). Both sides' counts are exact: a change of a few
# instructions per key is real.
#
# Another RocksDB release: DB_BENCH=PATH (its db_bench, linked against its
# shared librocksdb) and ROCKSDB_PREFIX=PREFIX (where that release is
# installed: PREFIX/include, PREFIX/lib): the adapter is then built against
# PREFIX (-DCMAKE_PREFIX_PATH; the harness stops if CMake found another
# RocksDB), and db_bench runs with LD_LIBRARY_PATH=PREFIX/lib, so that it
# and the preloaded adapter load one librocksdb. Give such a release a
# BLOCKBLOOM_SHARED_BUILD folder of its own (default build/shared).
#
# Prints, per benchmark, each side's median micros/op with min-max over the
# rounds and the median [min-max] of its per-round ratio to builtin's. Raw
# output in build/bench-runs/rocksdb-db-bench-<time>/ (BENCH_OUT=DIR).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

rounds=3
cpu=1
num=2000000
reads=400000
tables=20
sides_arg=builtin,rocksdb_ribbon,blockbloom,blockbloom@AVX3,blockbloom@AVX2,ribbon_from_1,learned
summarize=
prefix=1
instructions=0
num_set= reads_set= sides_set=
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds=*) rounds=${1#--rounds=} ;;
    --cpu=*) cpu=${1#--cpu=} ;;
    --num=*) num=${1#--num=} num_set=1 ;;
    --reads=*) reads=${1#--reads=} reads_set=1 ;;
    --tables=*) tables=${1#--tables=} ;;
    --sides=*) sides_arg=${1#--sides=} sides_set=1 ;;
    --summarize=*) summarize=${1#--summarize=} ;;
    --no_prefix) prefix=0 ;;
    --instructions) instructions=1 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "rocksdb_db_bench: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ "$instructions" = 1 ]; then
  [ -n "$num_set" ] || num=200000
  [ -n "$reads_set" ] || reads=20000
  [ -n "$sides_set" ] || sides_arg=builtin,blockbloom
  prefix=0
  command -v valgrind >/dev/null || {
    echo "rocksdb_db_bench: --instructions needs valgrind" >&2
    exit 1
  }
fi
if [ -n "$summarize" ]; then
  python3 "$here/rocksdb_db_bench_summary.py" "$summarize"
  exit 0
fi

policy_of() {
  case "${1%@*}" in
    builtin) echo "bloomfilter:10:false" ;;
    rocksdb_ribbon) echo "ribbonfilter:10" ;;
    blockbloom) echo "blockbloom.v1:10" ;;
    ribbon_from_1) echo "blockbloom.v1:10:ribbon_from_level:1" ;;
    learned) echo "blockbloom.v1:10:ribbon_from_level:1:level_aware:1:level_learned:1:ribbon_saves:false_reads" ;;
    learned_blocked) echo "blockbloom.v1:10:level_aware:1:level_learned:1" ;;
    *) echo "rocksdb_db_bench: unknown side $1" >&2; exit 2 ;;
  esac
}
env_of() {
  case "$1" in
    *@*) echo "BLOCKBLOOM_SIMD_TARGET=${1#*@}" ;;
    *) echo "" ;;
  esac
}
IFS=, read -r -a sides <<<"$sides_arg"
for s in "${sides[@]}"; do policy_of "$s" >/dev/null; done

db_bench=${DB_BENCH:-$(command -v db_bench || true)}
if [ -z "$db_bench" ]; then
  echo "rocksdb_db_bench: no db_bench (install rocksdb-tools:" \
    "scripts/install-deps rocksdb-tools, or set DB_BENCH)" >&2
  exit 77
fi

# The adapter as a shared library, against the RocksDB db_bench links.
shared=${BLOCKBLOOM_SHARED_BUILD:-$repo/build/shared}
prefix_flags=()
if [ -n "${ROCKSDB_PREFIX:-}" ]; then
  rocksdb_prefix=$(cd "$ROCKSDB_PREFIX" && pwd)
  prefix_flags=(-DCMAKE_PREFIX_PATH="$rocksdb_prefix")
  export LD_LIBRARY_PATH="$rocksdb_prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
cmake -S "$repo" -B "$shared" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DBUILD_SHARED_LIBS=ON -DBLOCKBLOOM_BUILD_TESTS=OFF \
  -DBLOCKBLOOM_BUILD_BENCH=OFF -DBLOCKBLOOM_BUILD_EXAMPLES=OFF \
  "${prefix_flags[@]}" >/dev/null
if [ -n "${ROCKSDB_PREFIX:-}" ]; then
  found=$(sed -n 's/^BLOCKBLOOM_ROCKSDB_INCLUDE:[A-Z]*=//p' "$shared/CMakeCache.txt")
  case "$found" in
    "$rocksdb_prefix"/*) ;;
    *)
      echo "rocksdb_db_bench: $shared builds against the RocksDB headers in" \
        "'${found:-nowhere}', not $rocksdb_prefix's (a folder configured for" \
        "another RocksDB? set BLOCKBLOOM_SHARED_BUILD to another folder)" >&2
      exit 1 ;;
  esac
fi
flock -s /tmp/bb-quiet.lock nice cmake --build "$shared" --target blockbloom_rocksdb >/dev/null
adapter=$shared/src/rocksdb/libblockbloom_rocksdb.so

out=${BENCH_OUT:-$repo/build/bench-runs/rocksdb-db-bench-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
dbs=${TMPDIR:-/tmp}/rocksdb_db_bench.$$
mkdir -p "$dbs"
trap 'rm -rf "$dbs"' EXIT
{
  echo "command: bench/rocksdb/rocksdb_db_bench.sh$([ "$instructions" = 1 ] && echo ' --instructions' || echo " --rounds=$rounds") --cpu=$cpu --num=$num --reads=$reads --tables=$tables --sides=$sides_arg$([ "$prefix" = 1 ] || echo ' --no_prefix')"
  echo "db_bench: $db_bench ($(ldd "$db_bench" | sed -n 's/.*\(librocksdb[^ ]*\) => \([^ ]*\).*/\2/p'))"
  echo "adapter: $adapter ($(ldd "$adapter" | sed -n 's/.*\(librocksdb[^ ]*\) => \([^ ]*\).*/\2/p'))"
  echo "blockbloom: $(git -C "$repo" describe --always --dirty 2>/dev/null || echo '?')"
  echo "machine: $(nproc) cores, $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
  echo "date: $(date -u +%Y-%m-%d)"
} | tee "$out/README"

# 16-byte keys and 100-byte values, as db_bench's defaults: ~116 bytes a
# key before compression, about 40 a key written after it (snappy, and the
# keys fillrandom draws twice: 2M draws leave 1.47M keys in 79 MB).
file_size=$((num * 40 / tables))
common=(--num="$num" --seed=1 --statistics=1 --value_size=100)
whole=(--key_size=16)
# The prefix DB's keys: 8 bytes of the prefix's number and 4 of '0' (the
# 12-byte prefix), then 8 bytes of the key's own number: 20 bytes.
prefixed=(--key_size=20 --prefix_size=12 --keys_per_prefix=4)

# One OPTIONS file per policy: the defaults but the filter policy and the
# table size, and no auto compactions (the tree stays as compacted).
options_file() {  # policy path [CFOptions line]
  cat >"$2" <<EOF
[Version]
  options_file_version=1.1
[DBOptions]
  create_if_missing=true
[CFOptions "default"]
  target_file_size_base=$file_size
  disable_auto_compactions=true
  compression=kSnappyCompression
  ${3:-}
[TableOptions/BlockBasedTable "default"]
  filter_policy=$1
EOF
}

runner=()  # what runs db_bench: nothing, or callgrind (--instructions)
db_of() {  # side [.prefix]: the side's DB folder, its OPTIONS file + .options
  echo "$dbs/$(policy_of "$1" | tr ':' '_')${2:-}"
}

run_side() {  # side db(""|.prefix) benchmarks log [flags...]
  local side=$1 db benchmarks=$3 log=$4
  local -a key_flags=("${whole[@]}")
  db=$(db_of "$side" "$2")
  [ "$2" = .prefix ] && key_flags=("${prefixed[@]}")
  shift 4
  # shellcheck disable=SC2046
  env LD_PRELOAD="$adapter" $(env_of "$side") taskset -c "$cpu" \
    "${runner[@]}" "$db_bench" --db="$db" --options_file="$db.options" "${common[@]}" \
    "${key_flags[@]}" --benchmarks="$benchmarks" "$@" >"$log" 2>&1
}

# Fill and compact each policy's DB once (untimed), and check that the
# policy was in effect (an unregistered id would load no filter at all).
dbkinds=("")
[ "$prefix" = 1 ] && dbkinds+=(.prefix)
declare -A filled
for side in "${sides[@]}"; do
  policy=$(policy_of "$side")
  [ -n "${filled[$policy]:-}" ] && continue
  filled[$policy]=1
  for kind in "${dbkinds[@]}"; do
    db=$(db_of "$side" "$kind")
    extractor=
    [ "$kind" = .prefix ] && extractor=prefix_extractor=rocksdb.FixedPrefix.12
    options_file "$policy" "$db.options" "$extractor"
    echo "filling the DB$kind of $policy (untimed)"
    exec {fillfd}>>/tmp/bb-quiet.lock
    flock -s "$fillfd"
    run_side "$side" "$kind" fillrandom,compact,levelstats \
      "$out/fill$kind.$side.txt" --use_existing_db=0
    exec {fillfd}>&-
    options=$(ls -t "$db"/OPTIONS-* | head -1)
    written=$(sed -n 's/^ *filter_policy=//p' "$options")
    case "$written" in
      nullptr | "")
        echo "rocksdb_db_bench: $policy was not loaded (filter_policy=$written)" >&2
        exit 1 ;;
    esac
    if [ -n "$extractor" ] && ! grep -q "prefix_extractor=.*FixedPrefix.12" "$options"; then
      echo "rocksdb_db_bench: the prefix DB of $policy has no prefix extractor" >&2
      exit 1
    fi
  done
done

# The prefix seeks of a side, renamed in its log so that the summary tells
# the two seekrandom runs apart.
prefix_seeks() {  # side log
  local name missing
  for name in prefixseek prefixseekmissing; do
    missing=0
    [ "$name" = prefixseekmissing ] && missing=1
    run_side "$1" .prefix seekrandom "$2.$name" --use_existing_db=1 \
      --reads="$reads" --seek_nexts=0 --seek_missing_prefix="$missing"
    sed "s/^seekrandom /$name /" "$2.$name" >>"$2"
    rm "$2.$name"
  done
}

if [ "$instructions" = 1 ]; then
  for side in "${sides[@]}"; do
    for bench in readrandom readmissing multireadrandom; do
      for r in "$reads" $((3 * reads)); do
        runner=(valgrind --tool=callgrind
          --callgrind-out-file="$out/$side.$bench.$r.callgrind")
        exec {cgfd}>>/tmp/bb-quiet.lock  # as a build: a shared hold
        flock -s "$cgfd"
        run_side "$side" "" "$bench" "$out/$side.$bench.$r.log" \
          --use_existing_db=1 --reads="$r" --multiread_batched=1 \
          --batch_size=32
        exec {cgfd}>&-
      done
      echo "$side $bench counted"
    done
  done
  python3 "$here/rocksdb_db_bench_summary.py" "$out" | tee "$out/summary.txt"
  echo "raw output: $out"
  exit 0
fi

exec {lockfd}>>/tmp/bb-quiet.lock
n=${#sides[@]}
for round in $(seq 1 "$rounds"); do
  flock -x "$lockfd"
  for i in $(seq 0 $((n - 1))); do
    side=${sides[$(((i + round - 1) % n))]}
    run_side "$side" "" readrandom,readmissing,multireadrandom \
      "$out/$side.$round.txt" --use_existing_db=1 --reads="$reads" \
      --multiread_batched=1 --batch_size=32
    [ "$prefix" = 1 ] && prefix_seeks "$side" "$out/$side.$round.txt"
  done
  flock -u "$lockfd"
  echo "round $round/$rounds done"
done
exec {lockfd}>&-

python3 "$here/rocksdb_db_bench_summary.py" "$out" | tee "$out/summary.txt"
echo "raw output: $out"
