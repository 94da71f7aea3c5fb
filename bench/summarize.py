#!/usr/bin/env python3
"""Turns probe_bench's JSON (all repetitions) into a markdown table:
median ns per probe with min-max, and the ratio to the memory floor measured
in the same run (single probes against the single-line floor, batches against
the batch-of-32 floor).

Usage: bench/summarize.py probe_bench.json
"""
import collections
import json
import sys


def size_name(n):
    n = int(n)
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def main(path):
    data = json.load(open(path))
    runs = collections.defaultdict(list)
    for b in data["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        value = b.get("ns/probe", b.get("ns/key"))
        if value is not None:
            runs[b["run_name"]].append(value * 1e9 if value < 1e-3 else value)
    stats = {}
    for name, values in runs.items():
        values.sort()
        stats[name] = (values[len(values) // 2], values[0], values[-1])

    ctx = data["context"]
    print(f"simd_target: {ctx.get('simd_target', '?')}, "
          f"{ctx.get('num_cpus')} CPUs, {ctx.get('date')}, "
          f"repetitions: {len(next(iter(runs.values())))}\n")
    print("| benchmark | size | batch | ns/probe median | min-max | vs floor |")
    print("|---|---|---|---|---|---|")
    order = ["SingleHash", "BatchHash", "MemoryFloor", "SingleKey16",
             "BatchKey16", "BuildFromHashes"]

    def key(name):
        parts = name.split("/")
        bench = parts[0].replace("BM_", "")
        rank = order.index(bench) if bench in order else len(order)
        return (rank, bench, int(parts[1]), int(parts[2]) if len(parts) > 2 else 0)

    for name in sorted(stats, key=key):
        med, lo, hi = stats[name]
        parts = name.split("/")
        bench, size = parts[0].replace("BM_", ""), parts[1]
        batch = parts[2] if len(parts) > 2 else ("1" if "Single" in bench else "-")
        floor_batch = "1" if batch == "1" else "32"
        floor = stats.get(f"BM_MemoryFloor/{size}/{floor_batch}")
        ratio = (f"{med / floor[0]:.2f}x" if floor and "Floor" not in bench
                 and "Build" not in bench else "")
        unit = "ns/key" if "Build" in bench else ""
        print(f"| {bench} | {size_name(size)} | {batch} | {med:.2f} {unit} | "
              f"{lo:.2f}-{hi:.2f} | {ratio} |")


if __name__ == "__main__":
    main(sys.argv[1])
