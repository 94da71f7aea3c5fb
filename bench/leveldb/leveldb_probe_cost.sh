#!/usr/bin/env bash
# Instructions per LevelDB KeyMayMatch on absent keys: LevelDB's built-in
# Bloom filter (Debian's libleveldb) against blockbloom's LevelDB policy,
# both called through leveldb::FilterPolicy as LevelDB calls them, counted
# by callgrind (repeatable whatever the machine's load; no lock needed).
# Also each filter's size (bytes CreateFilter appends) and measured FPR.
#
#   bench/leveldb/leveldb_probe_cost.sh [--build=DIR] [-- PROGRAM_FLAGS...]
#
#   --build=DIR     blockbloom build tree (default build/release, configured
#                   as Release if missing); target leveldb_probe_cost is built
#   PROGRAM_FLAGS   for leveldb_probe_cost.cc beside this script, e.g.
#                   --keys=40,150,1000 --bits=10 --keysets=db_bench,prefix
#                   --filters=100 --probes=10000 --fpr_probes=100000 (the
#                   defaults)
#
# Prints, per key set and key count: instructions per probe of each policy
# (callgrind's count for the probe loop / probes; "loop" is the same loop
# with a policy that returns at once, i.e. what the loop and the virtual call
# cost alone, included in both), blockbloom/builtin, the filter sizes, bits
# per key and FPRs; then, for each blockbloom configuration, where its
# instructions go (callgrind_annotate, inclusive, functions under the loop).
# A minute or two on 2 cores. Raw callgrind files in
# build/bench-runs/leveldb-probe-cost-<time>/ (BENCH_OUT=DIR to choose).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=$repo/build/release
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build=*) build=${1#--build=} ;;
    --) shift; args=("$@"); break ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "leveldb_probe_cost: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
command -v valgrind >/dev/null || { echo "leveldb_probe_cost: needs valgrind" >&2; exit 1; }
if [ ! -f "$build/CMakeCache.txt" ]; then
  launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  fi
  flock -s /tmp/bb-quiet.lock cmake -S "$repo" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" >/dev/null
fi
flock -s /tmp/bb-quiet.lock cmake --build "$build" -j "$(nproc)" \
  --target leveldb_probe_cost >/dev/null
program=$build/bench/leveldb/leveldb_probe_cost

out=${BENCH_OUT:-$repo/build/bench-runs/leveldb-probe-cost-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
out=$(cd "$out" && pwd)
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
{
  echo "command: bench/leveldb/leveldb_probe_cost.sh --build=$build${args[*]:+ -- ${args[*]}}"
  echo "blockbloom: $src at $(git -C "$src" describe --always --dirty 2>/dev/null || echo '?')"
  echo "LevelDB built-in: $(dpkg-query -W -f '${Package} ${Version}' libleveldb1d 2>/dev/null || echo 'libleveldb')"
  echo "valgrind: $(valgrind --version)"
} | tee "$out/README"

# Valgrind 3.19 cannot decode RDTSCP, which libhwy's static initializer runs
# (hwy::platform::TimerResolution): a stub preloaded in its place lets the
# program start under valgrind, as in bench/redis_client/profile.sh. Nothing here uses
# Highway's timer. (Valgrind has no AVX-512 either: Highway runs its AVX2
# target under it.)
cat >"$out/hwy_timer_stub.cc" <<'STUB'
#include <cstdint>
namespace hwy::platform {
__attribute__((visibility("default"))) uint64_t TimerResolution() { return 1; }
}  // namespace hwy::platform
STUB
c++ -O2 -shared -fPIC -o "$out/libhwy_timer_stub.so" "$out/hwy_timer_stub.cc"

# Collection is off except between the program's toggles around ProbeLoop;
# each configuration's count is dumped to its own file (cg.out.N).
LD_PRELOAD=$out/libhwy_timer_stub.so \
  flock -s /tmp/bb-quiet.lock valgrind --tool=callgrind --collect-atstart=no \
  --callgrind-out-file="$out/cg.out" "$program" ${args[@]+"${args[@]}"} \
  >"$out/program.txt" 2>"$out/valgrind.log" ||
  { tail -20 "$out/valgrind.log" >&2; exit 1; }

python3 - "$out" <<'EOF' | tee "$out/summary.txt"
import glob, os, re, subprocess, sys
out = sys.argv[1]
configs = {}
for line in open(f"{out}/program.txt"):
    if line.startswith("config "):
        c = dict(kv.split("=", 1) for kv in line.split()[1:])
        configs[c["label"]] = c
dumps = {}
for path in glob.glob(f"{out}/cg.out.*"):
    label, total = None, None
    for line in open(path, errors="replace"):
        m = re.match(r"desc: Trigger: Client Request: (\S+)", line)
        if m:
            label = m.group(1)
        m = re.match(r"(?:summary|totals): (\d+)", line)
        if m:
            total = int(m.group(1))
    if label and total is not None:
        dumps[label] = (total, path)

def per_probe(policy, keyset, keys):
    label = f"{policy}/{keyset}/{keys}"
    if label not in dumps or label not in configs:
        return None
    return dumps[label][0] / int(configs[label]["probes"])

rows = sorted({(c["keyset"], int(c["keys"])) for c in configs.values()},
              key=lambda r: (r[0] != "db_bench", r[0], r[1]))
bits = next(iter(configs.values()))["bits"] if configs else "?"
print(f"\nKeyMayMatch on absent keys, {bits} bits/key: instructions per probe "
      "(callgrind), filter size, FPR")
print(f"{'key set':<9} {'keys':>5} {'loop':>5} {'builtin':>8} {'blockbloom':>10} "
      f"{'bb/builtin':>10} | {'builtin B':>9} {'bb B':>8} | {'builtin b/k':>11} "
      f"{'bb b/k':>7} | {'builtin FPR':>11} {'bb FPR':>8}")
for keyset, keys in rows:
    loop = per_probe("null", keyset, keys)
    b = per_probe("builtin", keyset, keys)
    bb = per_probe("blockbloom", keyset, keys)
    cb = configs.get(f"builtin/{keyset}/{keys}", {})
    cbb = configs.get(f"blockbloom/{keyset}/{keys}", {})
    f = lambda v: f"{v:.1f}" if v is not None else "-"
    ratio = f"{bb / b:.3f}" if b and bb else "-"
    g = lambda c, k, fmt: fmt.format(float(c[k])) if k in c else "-"
    print(f"{keyset:<9} {keys:>5} {f(loop):>5} {f(b):>8} {f(bb):>10} {ratio:>10} | "
          f"{g(cb, 'bytes_mean', '{:.1f}'):>9} {g(cbb, 'bytes_mean', '{:.1f}'):>8} | "
          f"{g(cb, 'bits_per_key', '{:.3f}'):>11} {g(cbb, 'bits_per_key', '{:.3f}'):>7} | "
          f"{g(cb, 'fpr', '{:.4%}'):>11} {g(cbb, 'fpr', '{:.4%}'):>8}")
if configs:
    c = next(iter(configs.values()))
    print(f"(per configuration: {c['filters']} filters, {c['probes']} counted probes, "
          f"{c['fpr_probes']} probes for the FPR; sizes are means over the filters)")

# Where blockbloom's instructions go: each function's own instructions and
# those of everything it calls (callgrind_annotate's self and inclusive
# views), per probe, for the functions under the loop.
def annotate(path, inclusive):
    try:
        text = subprocess.run(
            ["callgrind_annotate", "--threshold=100",
             f"--inclusive={'yes' if inclusive else 'no'}", path],
            capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    costs = {}
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+(\S.*)$", line)
        if not m or ":" not in m.group(2):
            continue
        fn = re.sub(r"\s*\[[^\]]*\]\s*$", "", m.group(2).split(":", 1)[1].strip())
        costs[fn] = int(m.group(1).replace(",", ""))
    return costs

# Frames above the loop (collection starts inside them) and addresses
# without symbols are not functions of the probe.
above = re.compile(r"^(main|\(below main\)|__libc_start_main.*|0x[0-9a-f]+)$")
for keyset, keys in rows:
    label = f"blockbloom/{keyset}/{keys}"
    if label not in dumps:
        continue
    total, path = dumps[label]
    probes = int(configs[label]["probes"])
    incl, self_ = annotate(path, True), annotate(path, False)
    print(f"\n{label}: {total / probes:.1f} instructions per probe; by function "
          "(self, inclusive), per probe")
    names = [n for n in sorted(incl, key=lambda n: -incl[n]) if not above.match(n)]
    for fn in names[:14]:
        if incl[fn] * 200 < total:
            break
        print(f"  {self_.get(fn, 0) / probes:7.1f} {incl[fn] / probes:7.1f}  {fn[:100]}")
EOF
echo "raw output: $out"
