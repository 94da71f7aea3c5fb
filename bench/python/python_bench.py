#!/usr/bin/env python3
"""The Python binding's batch queries against the C++ batch probes they call,
on the same filter in the same process (docs/BENCHMARKS.md, "Python").

Measures, per key, each as the median (min-max) of --runs runs:
  hashes   Filter.may_contain_hashes(numpy uint64 array)  vs the C++
           MayContainHashBatch over the same array, timed in C++
           (blockbloom._blockbloom._time_hash_batch)
  fixed    Filter.may_contain_fixed(numpy 'S16' array)  vs the C++
           MayContainBatch over string_views of the same keys made
           beforehand, timed in C++ (_time_key_batch)
  list     Filter.may_contain_many(list of bytes)  vs a Python loop calling
           may_contain per key (and, for scale, the C++ MayContainBatch)
Runs of the two sides alternate, so that load from other processes falls on
both, and each timed call follows an untimed one of the same kind. Pin it to one core:

    PYTHONPATH=build/release/python taskset -c 1 \\
        /usr/bin/python3 bench/python/python_bench.py

(or with the package installed by pip: /tmp/venv/bin/python ...). Exit status
1 if a target is missed: Python batches over 1.5x the C++ time per key, or
the list batch under 5x faster than the per-key loop.
"""

import argparse
import statistics
import sys
import time

import numpy as np

import blockbloom
from blockbloom import _blockbloom


def per_key_ns(seconds, n):
    return seconds * 1e9 / n


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def summary(values):
    return "%.2f (%.2f-%.2f)" % (statistics.median(values), min(values),
                                 max(values))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keys", type=int, default=1_000_000,
                        help="keys in the filter (default 10^6)")
    parser.add_argument("--queries", type=int, default=1_000_000,
                        help="keys per batch (default 10^6)")
    parser.add_argument("--bits_per_key", type=float, default=10)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--width", type=int, default=16,
                        help="bytes per fixed-width key (default 16)")
    parser.add_argument("--smoke", action="store_true",
                        help="report only, no targets (the ctest smoke test "
                             "runs tiny sizes, where they mean nothing)")
    args = parser.parse_args()
    if args.runs < 1 or args.keys < 1 or args.queries < 1:
        parser.error("--keys, --queries and --runs must be positive")

    rng = np.random.default_rng(42)
    # Keys: random width-byte strings with no NUL byte (numpy drops trailing
    # NULs when it makes bytes objects of them, for the list); half of the
    # queries present, half absent.
    def make(count):
        return rng.integers(1, 256, size=(count, args.width),
                            dtype=np.uint8).view("S%d" % args.width).ravel()

    present = make(args.keys)
    absent = make(args.queries - args.queries // 2)
    queries = np.concatenate([present[rng.integers(0, args.keys,
                                                   args.queries // 2)],
                              absent])
    rng.shuffle(queries)
    f = blockbloom.Filter.from_fixed(present, bits_per_key=args.bits_per_key)
    hashes = blockbloom.hash_fixed(queries, seed=f.seed)
    key_list = [bytes(k) for k in queries]
    n = args.queries

    # The answers agree before anything is timed.
    expected = f.may_contain_hashes(hashes)
    assert (f.may_contain_fixed(queries) == expected).all()
    assert (f.may_contain_many(key_list) == expected).all()

    results = {name: [] for name in (
        "hashes_py", "hashes_cc", "fixed_py", "fixed_cc", "list_py",
        "list_loop")}
    def measure(name, python_call=None, cxx_time=None):
        """One run of one side: an untimed call first, so that each side
        starts with the filter as warm as the other's (a 19 MiB filter is
        partly evicted by whatever ran before), then the timed one."""
        if python_call is not None:
            python_call()
            results[name].append(per_key_ns(timed(python_call), n))
        else:
            cxx_time()
            results[name].append(per_key_ns(cxx_time(), n))

    may_contain = f.may_contain
    for _ in range(args.runs):
        measure("hashes_py", lambda: f.may_contain_hashes(hashes))
        measure("hashes_cc", cxx_time=lambda: _blockbloom._time_hash_batch(
            f, hashes))
        measure("fixed_py", lambda: f.may_contain_fixed(queries))
        measure("fixed_cc", cxx_time=lambda: _blockbloom._time_key_batch(
            f, queries))
        measure("list_py", lambda: f.may_contain_many(key_list))
        measure("list_loop", lambda: [may_contain(k) for k in key_list])

    med = {name: statistics.median(v) for name, v in results.items()}
    print("blockbloom Python binding, %s; filter: %d keys, %g bits/key, "
          "%.1f MiB, k=%d; %d queries (half present), %d-byte keys; "
          "%d runs, ns per key, median (min-max)" % (
              blockbloom.active_simd_target(), args.keys, args.bits_per_key,
              f.num_bits / 8 / 2**20, f.num_probes, n, args.width,
              args.runs))
    print()
    print("| batch | Python | C++ batch probe | Python / C++ |")
    print("|---|---|---|---|")
    print("| numpy uint64 hashes (may_contain_hashes) | %s | %s | %.2fx |" % (
        summary(results["hashes_py"]), summary(results["hashes_cc"]),
        med["hashes_py"] / med["hashes_cc"]))
    print("| numpy S%d keys (may_contain_fixed) | %s | %s | %.2fx |" % (
        args.width, summary(results["fixed_py"]), summary(results["fixed_cc"]),
        med["fixed_py"] / med["fixed_cc"]))
    print("| list of bytes (may_contain_many) | %s | %s | %.2fx |" % (
        summary(results["list_py"]), summary(results["fixed_cc"]),
        med["list_py"] / med["fixed_cc"]))
    print()
    print("list of bytes: may_contain_many %s ns/key, a Python loop of "
          "may_contain %s ns/key: %.1fx faster" % (
              summary(results["list_py"]), summary(results["list_loop"]),
              med["list_loop"] / med["list_py"]))

    failed = []
    for name in ("hashes", "fixed"):
        ratio = med[name + "_py"] / med[name + "_cc"]
        if ratio > 1.5:
            failed.append("%s: Python %.2fx the C++ time" % (name, ratio))
    if med["list_loop"] / med["list_py"] < 5:
        failed.append("list: only %.1fx faster than the loop" % (
            med["list_loop"] / med["list_py"]))
    for f_ in failed:
        print("MISSED: " + f_)
    return 1 if failed and not args.smoke else 0


if __name__ == "__main__":
    sys.exit(main())
