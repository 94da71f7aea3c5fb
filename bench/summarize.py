#!/usr/bin/env python3
"""Turns one run of filter_bench (JSON) and fpr_sweep (CSV) into the tables
and gnuplot PNGs of docs/BENCHMARKS.md.

  summarize.py --json bench.json --fpr fpr.csv --out RUN_DIR
               [--publish DIR --doc BENCHMARKS.md]

Writes RUN_DIR/results.md (every row: median, min-max over the interleaved
repetitions, ratios, FPR), RUN_DIR/*.png, every repetition compactly
(RUN_DIR/bench.csv) and, in RUN_DIR/plotdata, the data and gnuplot scripts
behind the plots. With --publish, copies what the page shows, the PNGs and
results.md, to DIR (docs/benchmarks/); with --doc, replaces the text between
the RESULTS markers of that file with the run's context, the targets (a row
each), a table of ns per probe and the instruction counts, linking to DIR
for the plots, the FPR sweep and every row. Standard library
only; gnuplot (gnuplot-nox) draws the plots.
"""

import argparse
import collections
import csv
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys

BEGIN = "<!-- BEGIN RESULTS (bench/run.sh writes this part) -->"
END = "<!-- END RESULTS -->"

SIZES_LABEL = {65536: "64 KiB", 1 << 20: "1 MiB", 16 << 20: "16 MiB",
               256 << 20: "256 MiB", 1 << 30: "1 GiB"}

# Display order and names.
FILTERS = [
    ("blockbloom", "blockbloom"),
    ("blockbloom_4k", "blockbloom, 4 KiB pages"),
    ("blockbloom_avx2", "blockbloom, AVX2 forced"),
    ("fastlocal_avx2", "FastLocalBloom AVX2 (ours)"),
    ("fastlocal_avx2_2m", "FastLocalBloom AVX2, 2 MiB pages"),
    ("rocksdb", "RocksDB 7.8 reader (scalar)"),
    ("parquet", "Parquet SBBF (Highway)"),
    ("parquet_2m", "Parquet SBBF, 2 MiB pages"),
    ("standard", "standard Bloom"),
    ("leveldb", "LevelDB 1.23 built-in"),
    ("absl_set", "absl::flat_hash_set (exact)"),
    ("floor", "memory floor"),
    ("floor_4k", "memory floor, 4 KiB pages"),
]
NAME = dict(FILTERS)
ORDER = {f: i for i, (f, _) in enumerate(FILTERS)}
BUILDERS = [
    ("blockbloom", "blockbloom (FilterBuilder, sized at Finish)"),
    ("blockbloom_fixed", "blockbloom (fixed shape)"),
    ("rocksdb", "RocksDB 7.8 builder"),
    ("leveldb", "LevelDB CreateFilter"),
    ("parquet", "Parquet SBBF (sized up front)"),
    ("standard", "standard Bloom (sized up front)"),
    ("absl_set", "absl::flat_hash_set insert"),
]
FPR_FILTERS = [
    ("blockbloom", "blockbloom", 1),
    ("fastlocal", "FastLocalBloom (RocksDB)", 2),
    ("parquet", "Parquet SBBF", 3),
    ("standard", "standard Bloom", 4),
    ("leveldb", "LevelDB", 7),
]
COLORS = {
    "blockbloom": "#d62728", "blockbloom_4k": "#ff9896",
    "blockbloom_avx2": "#ff7f0e", "fastlocal_avx2_2m": "#17becf",
    "parquet_2m": "#98df8a",
    "fastlocal_avx2": "#1f77b4", "rocksdb": "#aec7e8",
    "parquet": "#2ca02c", "standard": "#9467bd", "leveldb": "#8c564b",
    "absl_set": "#e377c2", "floor": "#000000", "floor_4k": "#7f7f7f",
    "fastlocal": "#1f77b4", "bound": "#000000",
}

PROBE_RE = re.compile(
    r"^probe/(?P<filter>[^/]+)/(?P<op>[^/]+)/(?P<input>[^/]+)"
    r"/bpk:(?P<bpk>[^/]+)/bytes:(?P<bytes>\d+)$")
BUILD_RE = re.compile(
    r"^build/(?P<filter>[^/]+)/(?P<input>[^/]+)/bpk:(?P<bpk>[^/]+)"
    r"/keys:(?P<keys>\d+)(?:/iterations:\d+)?$")


class Cell:
    """All repetitions of one benchmark."""

    def __init__(self):
        self.ns = []
        self.fpr = []
        self.huge = []
        self.faults = []

    @property
    def median(self):
        return statistics.median(self.ns)

    @property
    def lo(self):
        return min(self.ns)

    @property
    def hi(self):
        return max(self.ns)


def load(path):
    with open(path) as f:
        data = json.load(f)
    probes = collections.defaultdict(Cell)
    builds = collections.defaultdict(Cell)
    for b in data["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        m = PROBE_RE.match(b["name"])
        if m:
            key = (m["filter"], m["op"], m["input"], float(m["bpk"]),
                   int(m["bytes"]))
            cell = probes[key]
            cell.ns.append(b["ns/probe"] * 1e9)
            cell.fpr.append(b.get("fpr%", float("nan")))
            cell.huge.append(b.get("huge%", -1))
            continue
        m = BUILD_RE.match(b["name"])
        if m:
            key = (m["filter"], int(m["keys"]))
            builds[key].ns.append(b["ns/key"] * 1e9)
            if "faults" in b:
                builds[key].faults.append(b["faults"])
    return data["context"], probes, builds


def fmt(x, digits=3):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def med(probes, *key):
    cell = probes.get(key)
    return cell.median if cell else None


def sizes_of(probes):
    return sorted({k[4] for k in probes})


def size_label(n):
    if n in SIZES_LABEL:
        return SIZES_LABEL[n]
    if n >= 1 << 30:
        return f"{n / (1 << 30):g} GiB"
    if n >= 1 << 20:
        return f"{n / (1 << 20):g} MiB"
    return f"{n / 1024:g} KiB"


def full_table(probes, op, inp, bpk):
    """Every size and filter: median, min-max, ratios, FPR, huge pages."""
    out = ["| size | filter | ns/probe median | min - max | / blockbloom |"
           " / floor | FPR % | 2 MiB pages |",
           "|---|---|---|---|---|---|---|---|"]
    for s in sizes_of(probes):
        for f, _ in FILTERS:
            cell = probes.get((f, op, inp, bpk, s))
            if not cell:
                continue
            bb = med(probes, "blockbloom", op, inp, bpk, s)
            fl = med(probes, "floor", op, inp, bpk, s)
            fpr = "-" if f.startswith("floor") else f"{statistics.mean(cell.fpr):.3f}"
            huge = statistics.mean(cell.huge)
            huge_s = "-" if huge < 0 else f"{huge:.0f}%"
            out.append(
                f"| {size_label(s)} | {NAME[f]} | {fmt(cell.median)} | "
                f"{fmt(cell.lo)} - {fmt(cell.hi)} | "
                f"{fmt(ratio(cell.median, bb))} | {fmt(ratio(cell.median, fl))} | "
                f"{fpr} | {huge_s} |")
    return "\n".join(out) + "\n"


def build_table(builds):
    keys = sorted({k[1] for k in builds})
    if not keys:
        return ""
    head = ("| builder (16-byte keys, 10 bits/key) | " +
            " | ".join(f"{k:,} keys: ns/key (min - max) / blockbloom"
                       for k in keys) + " |\n")
    head += "|---|" + "---|" * len(keys) + "\n"
    rows = []
    for f, label in BUILDERS:
        cells = []
        for n in keys:
            c = builds.get((f, n))
            if not c:
                cells.append("n/a")
                continue
            bb = builds.get(("blockbloom", n))
            r = f", {c.median / bb.median:.2f}x" if bb and f != "blockbloom" else ""
            faults = (f", {statistics.median(c.faults):,.0f} faults"
                      if c.faults else "")
            cells.append(f"**{fmt(c.median)}** ({fmt(c.lo)} - {fmt(c.hi)}){r}"
                         f"{faults}")
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    return head + "\n".join(rows) + "\n"


def targets(probes, builds, fpr_rows):
    """The performance targets (docs/BENCHMARKS.md, "Hot path"), computed
    from this run: (target, where, measured, goal, met) in display order."""
    rows = []
    sizes = sizes_of(probes)
    cache = [s for s in sizes if s <= 1 << 20]
    big = [s for s in sizes if s >= 256 << 20]

    def line(name, where, value, goal, met):
        rows.append((name, where, value, goal, bool(met)))

    def m(f, op, s):
        return med(probes, f, op, "hash", 10.0, s)

    # Single probe within 1.15x of Parquet's, on the same pages: 4 KiB
    # (Parquet's buffer and blockbloom's 4 KiB copy) and 2 MiB (blockbloom's
    # own buffer and Parquet's 2 MiB copy).
    for s in sizes:
        for bb_f, pq_f, pages in (("blockbloom_4k", "parquet", "4 KiB"),
                                  ("blockbloom", "parquet_2m", "2 MiB")):
            bb, pq = m(bb_f, "single", s), m(pq_f, "single", s)
            if bb and pq:
                r = bb / pq
                line(f"single probe within 1.15x of Parquet SBBF ({pages} pages)",
                     size_label(s), f"{r:.2f}x ({fmt(bb)} vs {fmt(pq)} ns)",
                     "<= 1.15x", r <= 1.15)
    for s in cache:
        bb, fl = m("blockbloom", "single", s), m("floor", "single", s)
        if bb and fl:
            r = bb / fl
            line("single probe within 1.3x of the floor in cache",
                 size_label(s), f"{r:.2f}x ({fmt(bb)} vs {fmt(fl)} ns)",
                 "<= 1.3x", r <= 1.3)
    for s in big:
        for op in ("batch32", "batch1024"):
            bb, fl = m("blockbloom", op, s), m("floor", op, s)
            if bb and fl:
                r = bb / fl
                line(f"{op} within 1.05x of the floor", size_label(s),
                     f"{r:.2f}x ({fmt(bb)} vs {fmt(fl)} ns)", "<= 1.05x",
                     r <= 1.05)
    for s in big:
        for op in ("batch32", "batch1024"):
            for bb_f, fa_f, pages in (("blockbloom_4k", "fastlocal_avx2", "4 KiB"),
                                      ("blockbloom", "fastlocal_avx2_2m", "2 MiB")):
                bb, fa = m(bb_f, op, s), m(fa_f, op, s)
                if bb and fa:
                    r = fa / bb
                    line(f"{op} >= 1.3x FastLocalBloom-AVX2's ({pages} pages)",
                         size_label(s), f"{r:.2f}x ({fmt(bb)} vs {fmt(fa)} ns)",
                         ">= 1.3x", r >= 1.3)
    for (f, n), c in sorted(builds.items()):
        if f != "rocksdb":
            continue
        bb = builds.get(("blockbloom", n))
        if bb:
            r = c.median / bb.median
            line("build >= 2x RocksDB's builder", f"{n:,} keys",
                 f"{r:.2f}x ({fmt(bb.median)} vs {fmt(c.median)} ns/key)",
                 ">= 2x", r >= 2)
    for s in sizes:
        for op in ("single", "batch32", "batch1024"):
            bb, fa = m("blockbloom_avx2", op, s), m("fastlocal_avx2_2m", op, s)
            if bb and fa:
                r = fa / bb
                line(f"AVX2 target (forced) no slower than FastLocalBloom-AVX2 "
                     f"(2 MiB pages), {op}",
                     size_label(s), f"{r:.2f}x ({fmt(bb)} vs {fmt(fa)} ns)",
                     ">= 1.0x", r >= 1.0)
    by = collections.defaultdict(dict)
    for r in fpr_rows:
        by[float(r["bits_per_key"])][r["filter"]] = r
    for c in (10.0, 16.0):
        bb, fl = by.get(c, {}).get("blockbloom"), by.get(c, {}).get("fastlocal")
        if bb and fl:
            a, b = float(bb["measured"]), float(fl["measured"])
            # Within 2 standard errors of FastLocalBloom's rate counts as equal.
            se = math.sqrt(b * (1 - b) / max(1, int(fl["probes"])))
            line("accuracy: FastLocalBloom's FPR or better", f"{c:g} bits/key",
                 f"{a * 100:.4f}% vs {b * 100:.4f}%", "<= FastLocalBloom's",
                 a <= b + 2 * se)
    return rows


def targets_table(rows):
    """One line per target, its places side by side (the page's 400 lines
    hold every claim of the project, so a target takes one row)."""
    order, cells = [], collections.defaultdict(list)
    goals = {}
    for name, where, value, goal, met in rows:
        if name not in cells:
            order.append(name)
        goals[name] = goal
        cells[name].append(f"{where}: {value} "
                           f"{'**met**' if met else '**missed**'}")
    out = ["| target | goal | measured (blockbloom vs other), where |",
           "|---|---|---|"]
    for name in order:
        out.append(f"| {name} | {goals[name]} | " + "; ".join(cells[name]) +
                   " |")
    return "\n".join(out) + "\n"


def matrix_ops(probes, ops, inp, bpk):
    """Rows: filters; columns: sizes; cell: the median ns of each operation
    in `ops`, "-" where the filter has no such operation. The ratios to
    blockbloom and to the floor are in results.md."""
    sizes = sizes_of(probes)
    filters = sorted({k[0] for k in probes
                      if k[1] in ops and k[2] == inp and k[3] == bpk},
                     key=lambda f: ORDER.get(f, 99))
    if not filters:
        return ""
    head = "| filter | " + " | ".join(size_label(s) for s in sizes) + " |\n"
    head += "|---|" + "---|" * len(sizes) + "\n"
    rows = []
    for f in filters:
        cells = []
        for s in sizes:
            xs = [med(probes, f, op, inp, bpk, s) for op in ops]
            if all(x is None for x in xs):
                cells.append("n/a")
                continue
            cells.append(" / ".join("-" if x is None else fmt(x)
                                    for x in xs))
        rows.append(f"| {NAME.get(f, f)} | " + " | ".join(cells) + " |")
    return head + "\n".join(rows) + "\n"


# The table of ns per probe on the page; results.md has every row (16 bits
# per key, and 8-, 16- and 64-byte keys hashed by each filter).
DOC_MATRICES = [(("single", "batch32", "batch1024"), "hash", 10.0)]
# The plots shown on the page; the others are linked.
DOC_PLOTS = ("speed_hash_bpk10.png", "fpr.png")


def doc_block(reps, elapsed, context, target_rows, probes, instructions,
              builds_md, fpr_md, pngs, rel):
    """The part of docs/BENCHMARKS.md between the RESULTS markers."""
    parts = [BEGIN, "", "## Latest results\n",
             f"Latest run ({reps} interleaved repetitions per row, "
             f"{elapsed} in all):\n", context,
             "### Targets\n", targets_table(target_rows)]
    for ops, inp, bpk in DOC_MATRICES:
        t = matrix_ops(probes, ops, inp, bpk)
        if t:
            what = ("pre-hashed" if inp == "hash"
                    else f"{inp[3:]}-byte keys, hashing included")
            parts.append(f"### ns per probe: {' / '.join(ops)}, {what}, "
                         f"{bpk:g} bits/key\n")
            parts.append("Median ns per absent-key probe; ratios, min - max, "
                         "the other settings, every builder and the FPR "
                         "sweep's table: "
                         f"[{rel}/results.md]({rel}/results.md).\n")
            parts.append(t)
    if instructions:
        parts.append("### Instructions per probe (bench/filters/instructions.sh)\n")
        parts.append(instructions.strip() + "\n")
    # Builds: the targets' rows here, every builder in results.md.
    # The FPR sweep: its plot here, its table in results.md.
    shown = [p for p in pngs if p in DOC_PLOTS]
    others = [p for p in pngs if p not in DOC_PLOTS]
    for png in shown:
        parts.append(f"![{png}]({rel}/{png})\n")
    if others:
        parts.append("More plots: " + ", ".join(f"[{p}]({rel}/{p})" for p in others)
                     + ".\n")
    parts.append(END)
    return "\n".join(parts)


def replace_block(doc_path, block):
    with open(doc_path) as f:
        doc = f.read()
    if BEGIN in doc and END in doc:
        doc = doc[:doc.index(BEGIN)] + block + doc[doc.index(END) + len(END):]
    else:
        doc = doc.rstrip("\n") + "\n\n" + block + "\n"
    with open(doc_path, "w") as f:
        f.write(doc)


def fpr_table(rows):
    by = collections.defaultdict(dict)
    for r in rows:
        by[float(r["bits_per_key"])][r["filter"]] = r
    out = ["| bits/key | bound 2^-c | " +
           " | ".join(label for _, label, _ in FPR_FILTERS) + " |",
           "|---|---|" + "---|" * len(FPR_FILTERS)]
    for c in sorted(by):
        cells = [f"{float(by[c]['bound']['theory']) * 100:.4f}%"]
        for f, _, _ in FPR_FILTERS:
            r = by[c].get(f)
            if not r:
                cells.append("-")
                continue
            cells.append(f"{float(r['measured']) * 100:.4f}% "
                         f"(k={r['k']}, theory {float(r['theory']) * 100:.4f}%)")
        out.append(f"| {c:g} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ plots

def gnuplot(script, path):
    with open(path, "w") as f:
        f.write(script)
    subprocess.run(["gnuplot", path], check=True)


def speed_plot(probes, out, inp, bpk, ops, png):
    panels = [op for op in ops
              if any(k[1] == op and k[2] == inp and k[3] == bpk for k in probes)]
    if not panels:
        return None
    plots = []
    legend = {}  # filter -> the style of its line, for the shared legend
    for op in panels:
        series = []
        for f, label in FILTERS:
            pts = [(s, probes[(f, op, inp, bpk, s)]) for s in sizes_of(probes)
                   if (f, op, inp, bpk, s) in probes]
            if not pts:
                continue
            dat = os.path.join(out, "plotdata",
                               f"speed_{inp}_{op}_bpk{bpk:g}_{f}.dat")
            with open(dat, "w") as fh:
                fh.write("# bytes median min max\n")
                for s, c in pts:
                    fh.write(f"{s} {c.median} {c.lo} {c.hi}\n")
            dash = ("dt 2" if f.endswith(("_4k", "_2m"))
                    or f in ("rocksdb", "blockbloom_avx2") else "dt 1")
            width = 3 if f == "blockbloom" else 2
            style = (f"lw {width} {dash} pt 7 ps 0.6 lc rgb '{COLORS[f]}'")
            legend[f] = (f"NaN with linespoints {style} title '{label}' "
                         "noenhanced")
            series.append(
                f"'plotdata/{os.path.basename(dat)}' using 1:2:3:4 with yerrorlines "
                f"{style} notitle")
        title = {"single": "single probes", "batch32": "batch of 32",
                 "batch1024": "batch of 1024"}[op]
        plots.append((title, series))
    n = len(plots)
    what = "pre-hashed" if inp == "hash" else f"{inp[3:]}-byte keys, hashing included"
    legend_h = 0.16  # bottom strip of the canvas for one shared legend
    script = [
        f"set terminal pngcairo size {max(560 * n, 1200)},680 font 'Sans,10' noenhanced",
        f"set output '{png}'",
        "set multiplot title "
        f"'ns per absent-key probe vs filter size ({what}, {bpk:g} bits/key); "
        "median of the repetitions, bars min-max' font 'Sans,12'",
        "set logscale xy", "set grid xtics ytics mytics",
        "set xtics ('64K' 65536, '1M' 1048576, '16M' 16777216, "
        "'256M' 268435456, '1G' 1073741824)",
        "set xrange [45000:1500000000]",
        "set xlabel 'filter size (log)'", "set ylabel 'ns / probe (log)'",
        "unset key",
    ]
    for i, (title, series) in enumerate(plots):
        script += [f"set origin {i / n:.4f},{legend_h}",
                   f"set size {1 / n:.4f},{0.93 - legend_h}",
                   f"set title '{title}'",
                   "plot " + ", \\\n     ".join(series)]
    # The legend: the first panel's series again, drawn off-range.
    script += [
        "set origin 0,0", f"set size 1,{legend_h}", "unset title",
        "unset border", "unset tics", "unset grid", "unset xlabel",
        "unset ylabel", "unset logscale", "set xrange [0:1]",
        "set yrange [0:1]",
        "set key center center horizontal maxrows 3 Left reverse width 2 "
        "samplen 3 font 'Sans,10'",
        "plot " + ", \\\n     ".join(
            legend[f] for f, _ in FILTERS if f in legend),
        "unset multiplot",
    ]
    cwd = os.getcwd()
    os.chdir(out)
    try:
        gnuplot("\n".join(script) + "\n",
                os.path.join("plotdata", png.replace(".png", ".gp")))
    finally:
        os.chdir(cwd)
    return png


def fpr_plot(rows, out, png="fpr.png"):
    by = collections.defaultdict(list)
    for r in rows:
        by[r["filter"]].append(r)
    series = []
    for f, label, pt in FPR_FILTERS:
        pts = sorted(by.get(f, []), key=lambda r: float(r["bits_per_key"]))
        if not pts:
            continue
        dat = os.path.join(out, "plotdata", f"fpr_{f}.dat")
        with open(dat, "w") as fh:
            fh.write("# bits/key measured theory k\n")
            for r in pts:
                m = float(r["measured"])
                fh.write(f"{r['bits_per_key']} {m if m > 0 else 'NaN'} "
                         f"{r['theory']} {r['k']}\n")
        base = "plotdata/" + os.path.basename(dat)
        series.append(f"'{base}' using 1:3 with lines lw 2 lc rgb '{COLORS[f]}' "
                      f"title '{label}: theory' noenhanced")
        series.append(f"'{base}' using 1:2 with points pt {pt} ps 1.3 "
                      f"lc rgb '{COLORS[f]}' title '{label}: measured' noenhanced")
    script = [
        "set terminal pngcairo size 900,640 font 'Sans,10'",
        f"set output '{png}'",
        "set title 'False-positive rate vs bits/key: measured (points) and "
        "theory (lines)' font 'Sans,12'",
        "set logscale y", "set format y '10^{%L}'", "set grid",
        "set xlabel 'bits per key'", "set ylabel 'false-positive rate (log)'",
        "set xrange [3.5:20.5]", "set key bottom left font 'Sans,9'",
        "plot " + ", \\\n     ".join(
            series + ["2**(-x) with lines dt 2 lw 2 lc rgb '#000000' "
                      "title 'information bound 2^{-c}'"]),
    ]
    cwd = os.getcwd()
    os.chdir(out)
    try:
        gnuplot("\n".join(script) + "\n", os.path.join("plotdata", "fpr.gp"))
    finally:
        os.chdir(cwd)
    return png


# ------------------------------------------------------------------ output

def context_md(ctx):
    load = ", ".join(f"{x:.2f}" for x in ctx.get("load_avg", []))
    return "\n".join([
        f"- date: {ctx.get('date', '?')}",
        f"- CPU: {ctx.get('cpu_model', '?')} ({ctx.get('cpu_detail', '?')}), "
        f"{ctx.get('num_cpus', '?')} cores at {ctx.get('mhz_per_cpu', '?')} MHz; "
        + ", ".join(f"L{c['level']} {c['type'][0]} {c['size'] // 1024} KiB"
                    for c in ctx.get("caches", [])),
        f"- Highway target: blockbloom {ctx.get('blockbloom_simd_target', '?')}, "
        f"Parquet {ctx.get('parquet_simd_target', '?')}; FastLocalBloom probe "
        f"{ctx.get('fastlocal_probe', '?')}; RocksDB {ctx.get('rocksdb_version', '?')}",
        f"- transparent huge pages: `{ctx.get('transparent_hugepage', '?')}`",
        f"- load average at the end of the run (others share this machine): {load}",
        f"- command: `{ctx.get('bench_command', 'bench/run.sh')}`",
    ]) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", required=True)
    ap.add_argument("--fpr", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--publish")
    ap.add_argument("--doc")
    ap.add_argument("--reps", default="?")
    ap.add_argument("--command", default="bench/run.sh")
    ap.add_argument("--elapsed", default="?")
    ap.add_argument("--instructions",
                    help="bench/filters/instructions.sh output (markdown) to "
                         "include")
    args = ap.parse_args()

    ctx, probes, builds = load(args.json)
    ctx["bench_command"] = args.command
    with open(args.fpr) as f:
        fpr_rows = list(csv.DictReader(f))
    os.makedirs(os.path.join(args.out, "plotdata"), exist_ok=True)

    pngs = []
    for inp, bpk, ops in [("hash", 10.0, ["single", "batch32", "batch1024"]),
                          ("hash", 16.0, ["single", "batch32", "batch1024"]),
                          ("key16", 10.0, ["single", "batch32"]),
                          ("key8", 10.0, ["single", "batch32"]),
                          ("key64", 10.0, ["single", "batch32"]),
                          ("key16", 16.0, ["single", "batch32"])]:
        png = speed_plot(probes, args.out, inp, bpk, ops,
                         f"speed_{inp}_bpk{bpk:g}.png")
        if png:
            pngs.append(png)
    if fpr_rows:
        pngs.append(fpr_plot(fpr_rows, args.out))

    # Full results.
    full = ["# Benchmark results, every row\n",
            "Generated by bench/run.sh (bench/summarize.py); see "
            "docs/BENCHMARKS.md for how to read them.\n", context_md(ctx)]
    for inp, bpk, op in [(i, b, o) for (i, b) in
                         [("hash", 10.0), ("hash", 16.0), ("key16", 10.0),
                          ("key16", 16.0), ("key8", 10.0), ("key64", 10.0)]
                         for o in ("single", "batch32", "batch1024")]:
        if any(k[1] == op and k[2] == inp and k[3] == bpk for k in probes):
            what = "pre-hashed" if inp == "hash" else f"{inp[3:]}-byte keys"
            full.append(f"\n## {op}, {what}, {bpk:g} bits/key\n")
            full.append(full_table(probes, op, inp, bpk))
    full.append("\n## Builds\n")
    full.append(build_table(builds))
    full.append("\n## False-positive rates (fpr_sweep)\n")
    full.append(fpr_table(fpr_rows))
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write("\n".join(full))

    # The raw repetitions, compactly, beside the full JSON in the run
    # folder: one row per benchmark run.
    with open(args.json) as f:
        raw = json.load(f)
    with open(os.path.join(args.out, "bench.csv"), "w") as f:
        w = csv.writer(f)
        w.writerow(["name", "ns_per_item", "fpr_percent", "huge_percent",
                    "iterations"])
        for b in raw["benchmarks"]:
            if b.get("run_type") != "iteration":
                continue
            per = b.get("ns/probe", b.get("ns/key", float("nan")))
            w.writerow([b["name"], f"{per * 1e9:.4g}",
                        f"{b.get('fpr%', float('nan')):.4g}",
                        f"{b.get('huge%', float('nan')):.3g}",
                        b["iterations"]])

    # Only what docs/BENCHMARKS.md shows: the plots and every row.
    if args.publish:
        os.makedirs(args.publish, exist_ok=True)
        for name in pngs + ["results.md"]:
            shutil.copy(os.path.join(args.out, name), args.publish)
    if not args.doc:
        return
    assets = args.publish or args.out
    rel = os.path.relpath(assets, os.path.dirname(os.path.abspath(args.doc)))
    instructions = None
    if args.instructions:
        with open(args.instructions) as f:
            instructions = f.read()
    replace_block(args.doc, doc_block(
        args.reps, args.elapsed, context_md(ctx),
        targets(probes, builds, fpr_rows), probes, instructions,
        build_table(builds), fpr_table(fpr_rows), pngs, rel))


if __name__ == "__main__":
    sys.exit(main())
