#!/usr/bin/env python3
"""Summary of a bench/rocksdb/rocksdb_db_bench.sh run folder.

Per benchmark: each side's median micros/op with min-max over the rounds,
and the median [min-max] of its per-round ratio to the builtin side's
(the sides of a round ran back to back, pinned to one core). Then each
side's filter tickers, summed over its rounds, per benchmark run.

A run with --instructions (callgrind files): per benchmark, each side's
instructions per key (the difference of the runs at R and 3R reads / 2R)
and its ratio to builtin's, and per key the inclusive instructions of each
function whose name has "MayMatch" (the filter readers).
"""
import collections
import glob
import os
import re
import statistics
import subprocess
import sys

BENCH = re.compile(r"^(\w+)\s+:\s+([\d.]+) micros/op")
TICKER = re.compile(r"^(rocksdb\.(?:bloom\.filter|[\w.]*level\.seek)\.[\w.]+)"
                    r" COUNT : (\d+)")
TICKERS = ("rocksdb.bloom.filter.useful",
           "rocksdb.bloom.filter.full.positive",
           "rocksdb.bloom.filter.full.true.positive")
# The prefix seeks' (the prefix seek workload): RocksDB 7.8 counts them in
# bloom.filter.prefix.*, 8.3 and later in the *level.seek.* tickers.
PREFIX_TICKERS = ("rocksdb.bloom.filter.prefix.checked",
                  "rocksdb.bloom.filter.prefix.useful",
                  "rocksdb.last.level.seek.filter.match",
                  "rocksdb.last.level.seek.filtered")


def short(ticker):
    """The ticker's name without rocksdb.bloom.filter. (or rocksdb.)."""
    for head in ("rocksdb.bloom.filter.", "rocksdb."):
        if ticker.startswith(head):
            return ticker[len(head):]
    return ticker


def parse(path):
    micros, tickers = {}, collections.Counter()
    with open(path) as f:
        for line in f:
            m = BENCH.match(line)
            if m:
                micros[m.group(1)] = float(m.group(2))
            m = TICKER.match(line)
            if m:
                tickers[m.group(1)] += int(m.group(2))
    return micros, tickers


CALLGRIND = re.compile(r"^(.+)\.(\w+)\.(\d+)\.callgrind$")
ANNOTATED = re.compile(r"^\s*([\d,]+) \([ \d.]+%\)\s+\S*?:(.*?MayMatch.*?) \[")


def total(path):
    with open(path) as f:
        for line in f:
            if line.startswith(("summary:", "totals:")):
                return int(line.split()[1])
    raise ValueError(f"no total in {path}")


def may_match(path):
    """Inclusive instructions of each function named *MayMatch*."""
    text = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
        check=True, capture_output=True, text=True).stdout
    found = {}
    for line in text.splitlines():
        m = ANNOTATED.match(line)
        if m:
            found[m.group(2).strip()] = int(m.group(1).replace(",", ""))
    return found


def instructions(folder, files):
    runs = collections.defaultdict(dict)  # (side, bench) -> reads -> path
    for path in files:
        side, bench, reads = CALLGRIND.match(os.path.basename(path)).groups()
        runs[(side, bench)][int(reads)] = path
    readme = os.path.join(folder, "README")
    if os.path.exists(readme):
        print(open(readme).read().rstrip())
    sides = sorted({s for s, _ in runs}, key=lambda s: (s != "builtin", s))
    benches = [b for b in ("readrandom", "readmissing", "multireadrandom")
               if any(b == k[1] for k in runs)]
    for bench in benches:
        print(f"\n{bench}: instructions per key (runs at R and 3R reads)")
        base = None
        for side in sides:
            by_reads = runs.get((side, bench), {})
            if len(by_reads) != 2:
                continue
            small, large = sorted(by_reads)
            per_key = ((total(by_reads[large]) - total(by_reads[small])) /
                       (large - small))
            line = f"  {side:16s} {per_key:10.1f}"
            if side == "builtin":
                base = per_key
            elif base:
                line += f"  ratio {per_key / base:.4f}x ({per_key - base:+.1f})"
            print(line)
            before, after = may_match(by_reads[small]), may_match(by_reads[large])
            for name in sorted(after):
                cost = (after[name] - before.get(name, 0)) / (large - small)
                if cost >= 0.5:
                    print(f"      {cost:8.1f}  {name}")
    return 0


def main(folder):
    files = glob.glob(os.path.join(folder, "*.callgrind"))
    if files:
        return instructions(folder, files)
    runs = collections.defaultdict(dict)  # side -> round -> (micros, tickers)
    for path in glob.glob(os.path.join(folder, "*.*.txt")):
        name = os.path.basename(path)[:-4]
        side, _, round_ = name.rpartition(".")
        if side.startswith("fill") or not round_.isdigit():
            continue
        runs[side][int(round_)] = parse(path)
    if not runs:
        print("no rounds in", folder)
        return 1
    readme = os.path.join(folder, "README")
    if os.path.exists(readme):
        print(open(readme).read().rstrip())
    sides = sorted(runs, key=lambda s: (s != "builtin", s))
    benches = []
    for side in sides:
        for micros, _ in runs[side].values():
            benches += [b for b in micros if b not in benches]
    base = runs.get("builtin", {})
    for bench in benches:
        print(f"\n{bench}: micros/op median [min-max] over "
              f"{len(base) or len(runs[sides[0]])} rounds; ratio to builtin")
        for side in sides:
            vals = [r[0][bench] for r in runs[side].values() if bench in r[0]]
            if not vals:
                continue
            ratios = [r[0][bench] / base[k][0][bench]
                      for k, r in runs[side].items()
                      if k in base and bench in r[0] and bench in base[k][0]]
            line = (f"  {side:16s} {statistics.median(vals):8.3f} "
                    f"[{min(vals):.3f}-{max(vals):.3f}]")
            if ratios and side != "builtin":
                line += (f"  ratio {statistics.median(ratios):.3f}x "
                         f"[{min(ratios):.3f}-{max(ratios):.3f}]")
            print(line)
    print("\nfilter tickers per round (all its benchmarks), median:")
    for side in sides:
        counts = [r[1] for r in runs[side].values()]
        shown = TICKERS + tuple(t for t in PREFIX_TICKERS
                                if any(c[t] for c in counts))
        cells = [f"{short(t)}="
                 f"{int(statistics.median(c[t] for c in counts))}"
                 for t in shown]
        print(f"  {side:16s} " + " ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
