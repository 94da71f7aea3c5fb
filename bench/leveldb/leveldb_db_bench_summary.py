"""Summary of a bench/leveldb/leveldb_db_bench.sh run folder.

    python3 bench/leveldb/leveldb_db_bench_summary.py RUN_DIR ROUNDS

Reads RUN_DIR/{builtin,blockbloom}.N.txt (db_bench's output, then a
"filters:" line from filter_block_sizes) for N = 1..ROUNDS and prints, per
benchmark: each side's median micros/op and ops/s with min-max, the ratio of
the medians (blockbloom/builtin), and the median with min-max of the
per-round ratios (each round's two runs are back to back under one lock
hold, so the paired ratio is the least disturbed by the machine's drift);
then each side's filter blocks.
"""
import re
import statistics
import sys

out, rounds = sys.argv[1], int(sys.argv[2])
sides = ["builtin", "blockbloom"]
micros = {s: {} for s in sides}  # side -> benchmark -> {round: micros/op}
filters = {s: [] for s in sides}  # side -> [{key: value}]
order = []
for s in sides:
    for r in range(1, rounds + 1):
        for line in open(f"{out}/{s}.{r}.txt"):
            m = re.match(r"^(\w+)\s*:\s*([0-9.]+) micros/op;", line)
            if m:
                if m.group(1) not in order:
                    order.append(m.group(1))
                micros[s].setdefault(m.group(1), {})[r] = float(m.group(2))
            if line.startswith("filters:"):
                filters[s].append(dict(kv.split("=", 1) for kv in line.split()[1:]))


def fmt(v):
    return f"{v:.3f}" if v < 100 else f"{v:,.0f}"


def spread(values, f=fmt):
    return f"{f(statistics.median(values))} ({f(min(values))}-{f(max(values))})"


print(f"\ndb_bench, {rounds} interleaved rounds (builtin, then blockbloom): "
      "median (min-max)")
header = (f"{'benchmark':<12} {'builtin micros/op':>24} {'blockbloom micros/op':>24} "
          f"{'ratio of medians':>16} {'paired ratio':>20} "
          f"{'builtin ops/s':>28} {'blockbloom ops/s':>28}")
print(header)
for b in order:
    a, c = micros["builtin"].get(b, {}), micros["blockbloom"].get(b, {})
    if not a or not c:
        continue
    ratio = statistics.median(c.values()) / statistics.median(a.values())
    paired = [c[r] / a[r] for r in a if r in c and a[r] > 0]
    ops = lambda d: [1e6 / v for v in d.values() if v > 0]
    intf = lambda v: f"{v:,.0f}"
    print(f"{b:<12} {spread(list(a.values())):>24} {spread(list(c.values())):>24} "
          f"{ratio:>16.3f} {spread(paired):>20} "
          f"{spread(ops(a), intf):>28} {spread(ops(c), intf):>28}")
print("(ratios are blockbloom/builtin of micros/op: below 1 means blockbloom is "
      "faster; ops/s = 10^6 / micros/op)")

print("\nfilter blocks of the compacted DB (filter_block_sizes; median over rounds):")
for s in sides:
    f = filters[s]
    if not f:
        continue

    def med(k):
        return statistics.median(float(x[k]) for x in f)

    print(f"  {s:<10} policy={f[0]['policy']} tables={med('tables'):.0f} "
          f"entries={med('entries'):.0f} filters={med('filters'):.0f}: "
          f"{med('filter_bytes'):,.0f} filter bytes ({med('bits_per_key_filters'):.3f} "
          f"bits/key); whole filter blocks {med('filter_block_bytes'):,.0f} B "
          f"({med('bits_per_key_block'):.3f} bits/key)")
