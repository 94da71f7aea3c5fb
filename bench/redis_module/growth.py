#!/usr/bin/python3
"""The Redis module's rate promise, growth and memory, side by side with
RedisBloom 2.4.9 (docs/BENCHMARKS.md, "Redis module: rate, growth, memory").

Each module runs in its own Debian redis-server (the two cannot be loaded
together: same command names), started here on free loopback ports, pinned
to one core (taskset, as bench/redis_module/run.py); the servers stay up
together and timed rounds are interleaved, so ratios are taken within one
run. RedisBloom is optional: give the path of a RedisBloom .so with
--redisbloom (it is not part of this repository and not built here); its
columns are left out without it. --today adds an earlier blockbloom.so (the
module before the rate split) to the single-item rounds.

Sections (--sections, default all):
  fill     BF.RESERVE g 0.01 20000 with EXPANSION 2, 1 and 4, filled to
           0.1x, 1x, 4x, 16x, 64x its capacity (items item:N): layers,
           BF.INFO Size bits/item (Size*8 / items offered) and the measured
           false-positive rate over --probes absent items; and the Size of
           BF.RESERVE big 0.01 1e9 (one layer), NONSCALING too.
  layers   a stack grown to 16 layers (BF.RESERVE s 0.01 C EXPANSION 2,
           C*(2^15-1 + 2^14) items: 15 full layers and a half-full 16th),
           a one-layer key of the same BF.INFO Size filled with the same
           items, and RedisBloom's stack of the same arguments and items:
           BF.EXISTS of random absent items (redis-benchmark __rand_int__,
           -c 50 -P 32), usec_per_call (INFO commandstats).
  single   BF.RESERVE bf 0.01 1e9 filled with --items items (every page
           touched), per module: GET, BF.EXISTS, BF.ADD (a twin filter),
           BF.MEXISTS of 32, usec_per_call, -c 50 -P 32.
  huge     (--huge-module PATH: a build of the module with 2 MiB-aligned
           pieces and MADV_HUGEPAGE) BF.EXISTS on a 1 GiB filter with and
           without huge pages; BGSAVE's fork time (latest_fork_usec), its
           copy-on-write bytes (rdb_last_cow_size) and BF.ADD usec_per_call
           while the child runs.

  bench/redis_module/growth.py [--build=DIR] [--redisbloom=PATH] [--today=PATH]
                            [--quick] [--sections=fill,layers,single]
                            [--markdown=FILE]

The full run takes /tmp/bb-quiet.lock exclusively while it measures (other
sessions' builds take it shared and pause); --no-lock skips that.
bench/redis_module/run.py --redisbloom=PATH runs it after its own tables.

Prints markdown tables. No timing is asserted: it exits non-zero only on a
failure (an error reply, a module that does not load, a false negative).
"""

import argparse
import fcntl
import importlib.machinery
import importlib.util
import os
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
NAME = "redis_module/growth"

# The RESP client, server, pinning and formatting of bench/redis_module/run.
_loader = importlib.machinery.SourceFileLoader("redis_module_run",
                                               os.path.join(HERE, "run"))
_spec = importlib.util.spec_from_loader("redis_module_run", _loader)
run = importlib.util.module_from_spec(_spec)
_loader.exec_module(run)


def log(*args):
    print(f"{NAME}:", *args, file=sys.stderr, flush=True)


def die(*args):
    log(*args)
    sys.exit(1)


def fill(r, key, start, stop, prefix=b"f:", batch=1000, window=8):
    """BF.MADD of prefix+N for N in [start, stop), streamed. Returns the
    number of items answered 1 (new)."""
    pending = added = 0
    for s in range(start, stop, batch):
        items = [prefix + b"%d" % i for i in range(s, min(stop, s + batch))]
        r.send(run.batched_command(b"BF.MADD", key, items))
        pending += 1
        if pending == window:
            added += r.count_ones()[1]
            pending -= 1
    for _ in range(pending):
        added += r.count_ones()[1]
    return added


def check_present(r, key, start, stop, prefix=b"f:", sample=20000):
    step = max(1, (stop - start) // sample)
    items = [prefix + b"%d" % i for i in range(start, stop, step)]
    _, ones = run.multi(r, b"BF.MEXISTS", key, items)
    if ones != len(items):
        die(f"FALSE NEGATIVES in {key!r}: {len(items) - ones} of "
            f"{len(items)} filled items answered absent")


class Contender:
    def __init__(self, name, module, cpu, root):
        self.name = name
        self.module = module
        self.workdir = tempfile.mkdtemp(prefix=name + "-", dir=root)
        self.server = run.Server(module, cpu, self.workdir)
        self.r = run.Redis(self.server.port)

    def stop(self):
        try:
            self.r.close()
        except OSError:
            pass
        self.server.stop()


def fmt_pct(x):
    return f"{x * 100:.3f}%"


def main():
    ap = argparse.ArgumentParser(
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build/release")
    ap.add_argument("--module", help="default <build>/src/redis_module/"
                    "blockbloom.so")
    ap.add_argument("--redisbloom", help="a RedisBloom .so (optional)")
    ap.add_argument("--today", help="an earlier blockbloom.so (optional)")
    ap.add_argument("--huge-module", help="the module built with huge pages "
                    "(optional; the huge section)")
    ap.add_argument("--sections", default="fill,layers,single,huge")
    ap.add_argument("--quick", action="store_true",
                    help="small sizes, one round (smoke run)")
    ap.add_argument("--rate", type=float, default=0.01)
    ap.add_argument("--probes", type=int, default=None,
                    help="absent items per FPR point (default 200000)")
    ap.add_argument("--layer-capacity", type=int, default=None,
                    help="C of the 16-layer stack (default 400; quick 20)")
    ap.add_argument("--items", type=int, default=None,
                    help="items of the single-item filters (default 3M)")
    ap.add_argument("--requests", type=int, default=None,
                    help="redis-benchmark requests per round (default 1M)")
    ap.add_argument("--repetitions", type=int, default=None,
                    help="interleaved rounds (default 5)")
    ap.add_argument("--markdown")
    ap.add_argument("--no-lock", action="store_true",
                    help="do not take /tmp/bb-quiet.lock exclusively (the "
                    "quick mode never does; bench/redis_module/run.py holds it)")
    args = ap.parse_args()

    q = args.quick
    probes = args.probes or (20000 if q else 200000)
    layer_c = args.layer_capacity or (20 if q else 400)
    single_items = args.items or (100000 if q else 3000000)
    requests = args.requests or (20000 if q else 1000000)
    reps = args.repetitions or (1 if q else 5)
    sections = set(args.sections.split(","))
    rate = args.rate
    os.chdir(REPO)
    module = os.path.abspath(args.module or os.path.join(
        args.build, "src", "redis_module", "blockbloom.so"))
    if not os.path.exists(module):
        die(f"no module {module}")
    rb = os.path.abspath(args.redisbloom) if args.redisbloom else None
    if rb and not os.path.exists(rb):
        log(f"no RedisBloom at {rb}: its columns are left out")
        rb = None
    today = os.path.abspath(args.today) if args.today else None
    if today and not os.path.exists(today):
        log(f"no {today}: left out")
        today = None
    huge = os.path.abspath(args.huge_module) if args.huge_module else None
    if huge and not os.path.exists(huge):
        die(f"no {huge}")
    if not q and not args.no_lock:
        # Other sessions' builds take it shared and pause while we measure.
        lockfile = open("/tmp/bb-quiet.lock", "a")
        log("waiting for /tmp/bb-quiet.lock (exclusive)")
        fcntl.flock(lockfile, fcntl.LOCK_EX)
        log("got the lock")
    server_cpu, client_cpu = run.pick_cpus()
    if client_cpu is not None:
        os.sched_setaffinity(0, {int(client_cpu)})
    model = ""
    for line in subprocess.run(["lscpu"], capture_output=True,
                               text=True).stdout.splitlines():
        if line.startswith("Model name"):
            model = line.split(":", 1)[1].strip()
    version = subprocess.run(["redis-server", "--version"],
                             capture_output=True, text=True).stdout.split()[2]
    root = tempfile.mkdtemp(prefix="blockbloom-growth-bench-")
    contenders = []
    out = []

    def emit(text=""):
        print(text, flush=True)
        out.append(text)

    def start(name, path):
        c = Contender(name, path, server_cpu, root)
        contenders.append(c)
        return c

    def stop_all():
        while contenders:
            contenders.pop().stop()

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(130))
    started = time.time()
    try:
        emit(f"## Redis module: rate, growth, memory "
             f"({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(started))})")
        emit()
        emit(f"Machine: {model or 'unknown CPU'}, {os.cpu_count()} CPUs; "
             f"redis-server {version.replace('v=', '')}; servers pinned to "
             f"CPU {server_cpu}, clients to CPU {client_cpu}; load average "
             f"{os.getloadavg()[0]:.2f} before the run.")
        emit("Command: bench/redis_module/growth.py " +
             " ".join(shlex.quote(a) for a in sys.argv[1:]))
        emit(f"Modules: blockbloom {module}" +
             (f"; RedisBloom {rb}" if rb else "; no RedisBloom") +
             (f"; earlier blockbloom {today}" if today else ""))
        emit()

        if "fill" in sections:
            section_fill(emit, start, stop_all, module, rb, rate, probes, q)
        if "layers" in sections:
            section_layers(emit, start, stop_all, module, rb, today, rate,
                           layer_c, requests, reps, client_cpu)
        if "single" in sections:
            section_single(emit, start, stop_all, module, rb, today, rate,
                           single_items, requests, reps, client_cpu)
        if "huge" in sections and huge:
            section_huge(emit, start, stop_all, module, huge, rate,
                         single_items, requests, reps, client_cpu, q)
        emit(f"Took {time.time() - started:.0f} s; load average "
             f"{os.getloadavg()[0]:.2f} at the end.")
    finally:
        stop_all()
        shutil.rmtree(root, ignore_errors=True)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("\n".join(out) + "\n")


FILLS = [0.1, 1, 4, 16, 64]


def fill_points(r, rate, capacity, expansion, probes):
    r.call("DEL", "g")
    r.call("BF.RESERVE", "g", str(rate), str(capacity), "EXPANSION",
           str(expansion))
    absent = [b"absent:%d" % i for i in range(probes)]
    offered = 0
    rows = []
    for f in FILLS:
        target = int(f * capacity)
        fill(r, b"g", offered, target, prefix=b"item:")
        offered = target
        info = run.bf_info(r, "g")
        _, positives = run.multi(r, b"BF.MEXISTS", b"g", absent)
        rows.append({"fill": f, "size": int(info["Size"]),
                     "layers": int(info["Number of filters"]),
                     "bits": int(info["Size"]) * 8 / target,
                     "fpr": positives / probes})
    check_present(r, b"g", 0, offered, prefix=b"item:")
    r.call("DEL", "g")
    return rows


def section_fill(emit, start, stop_all, module, rb, rate, probes, q):
    capacity = 2000 if q else 20000
    mods = [("blockbloom", start("blockbloom", module))]
    if rb:
        mods.append(("RedisBloom", start("RedisBloom", rb)))
    results = {}
    for expansion in (2, 1, 4):
        for name, c in mods:
            log(f"fill: {name} EXPANSION {expansion}")
            results[(name, expansion)] = fill_points(c.r, rate, capacity,
                                                     expansion, probes)
    big = {}
    for name, c in mods:
        for extra in ([], ["NONSCALING"]):
            c.r.call("BF.RESERVE", "big", str(rate), "1000000000", *extra)
            big[(name, bool(extra))] = size_of(c.r, "big")
            c.r.call("DEL", "big")
    stop_all()

    emit(f"### False-positive rate and memory at every fill "
         f"(BF.RESERVE g {rate} {capacity} EXPANSION e)")
    emit()
    emit(f"FPR over {probes} absent items; bits/item = BF.INFO Size x 8 / "
         "items offered; ratio = blockbloom's bits/item over RedisBloom's at "
         "the same fill.")
    emit()
    head = "| EXPANSION | fill | blockbloom layers | bits/item | FPR |"
    sep = "|---|---|---|---|---|"
    if rb:
        head += " RedisBloom layers | bits/item | FPR | bits ratio |"
        sep += "---|---|---|---|"
    emit(head)
    emit(sep)
    for expansion in (2, 1, 4):
        for i, f in enumerate(FILLS):
            b = results[("blockbloom", expansion)][i]
            line = (f"| {expansion} | {f:g}x | {b['layers']} | "
                    f"{b['bits']:.2f} | {fmt_pct(b['fpr'])} |")
            if rb:
                o = results[("RedisBloom", expansion)][i]
                line += (f" {o['layers']} | {o['bits']:.2f} | "
                         f"{fmt_pct(o['fpr'])} | {b['bits'] / o['bits']:.3f} |")
            emit(line)
    emit()
    emit(f"One layer, `BF.RESERVE big {rate} 1000000000`: blockbloom "
         f"{big[('blockbloom', False)]:,} B "
         f"({big[('blockbloom', False)] * 8 / 1e9:.3f} bits/item)" +
         (f", RedisBloom {big[('RedisBloom', False)]:,} B "
          f"({big[('RedisBloom', False)] * 8 / 1e9:.3f}): "
          f"{big[('blockbloom', False)] / big[('RedisBloom', False)]:.3f}x"
          if rb else "") +
         f"; NONSCALING: blockbloom {big[('blockbloom', True)] * 8 / 1e9:.3f}" +
         (f", RedisBloom {big[('RedisBloom', True)] * 8 / 1e9:.3f} bits/item"
          if rb else " bits/item") + ".")
    emit()
    # Targets.
    worst = max(row["fpr"] for e in (2, 1, 4)
                for row in results[("blockbloom", e)])
    emit("| target | measured | met |")
    emit("|---|---|---|")
    for e in (2, 1, 4):
        w = max(row["fpr"] for row in results[("blockbloom", e)])
        emit(f"| FPR <= {rate:g} at 0.1x-64x, EXPANSION {e} | max "
             f"{fmt_pct(w)} | {'yes' if w <= rate else 'NO'} |")
    if rb:
        one = big[("blockbloom", False)] / big[("RedisBloom", False)]
        emit(f"| one layer <= 0.95x RedisBloom's default (stretch 0.92x) | "
             f"{one:.3f}x | {'yes' if one <= 0.95 else 'NO'}"
             f"{' (stretch: yes)' if one <= 0.92 else ''} |")
        for f in (4, 64):
            i = FILLS.index(f)
            ratio = (results[("blockbloom", 2)][i]["bits"] /
                     results[("RedisBloom", 2)][i]["bits"])
            emit(f"| grown to {f}x (EXPANSION 2) <= 1.05x RedisBloom's | "
                 f"{ratio:.3f}x | {'yes' if ratio <= 1.05 else 'NO'} |")
    emit()
    del worst


def size_of(r, key):
    # The full reply: the RedisBloom build may not take a field.
    return int(run.bf_info(r, key)["Size"])


def one_layer_of_size(r, key, rate, size):
    """BF.RESERVE key rate N with the N whose Size is closest to `size`."""
    lo, hi = 1, size  # bits/item > 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        r.call("BF.RESERVE", key, str(rate), str(mid))
        s = size_of(r, key)
        r.call("DEL", key)
        if s <= size:
            lo = mid
        else:
            hi = mid - 1
    r.call("BF.RESERVE", key, str(rate), str(lo))
    return lo


CPU_TIMES = {}  # label -> [server CPU µs per command, per round]


def server_cpu_us(pid):
    """The server's user + system CPU time so far, in µs (/proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1e6 / os.sysconf(
        "SC_CLK_TCK")


def bench_rounds(emit_log, jobs, reps, client_cpu, requests):
    """jobs: [(label, contender, command, stat, slower)]; returns
    label -> [usec_per_call per round]. Also records, in CPU_TIMES, the
    server's CPU time per command over the round (user + system: what the
    server spent, whatever else ran on its core; commandstats' usec is wall
    time inside the command, which grows when the server is descheduled on
    a loaded machine)."""
    res = {label: [] for label, *_ in jobs}
    for rep in range(reps):
        for label, c, command, stat, slower in jobs:
            n = max(1000, requests // slower)
            c.r.call("CONFIG", "RESETSTAT")
            cpu0 = server_cpu_us(c.server.proc.pid)
            run.redis_benchmark(c.server.port, client_cpu, 50, 32, n,
                                command)
            cpu1 = server_cpu_us(c.server.proc.pid)
            calls, usec = c.r.commandstats()[stat]
            res[label].append(usec / calls)
            CPU_TIMES.setdefault(label, []).append((cpu1 - cpu0) / n)
            emit_log(f"round {rep + 1}: {label}: {usec / calls:.3f} us/call, "
                     f"server CPU {(cpu1 - cpu0) / n:.3f} us/command")
    return res


def cpu_note(emit, labels, base=None):
    """A table of the server's CPU µs per command (load-robust)."""
    emit("Server CPU time per command (utime + stime of redis-server over "
         "the round / commands sent: parsing and replies included, so "
         "ratios are nearer 1 than usec_per_call's), median [min-max]:")
    emit()
    emit("| | server CPU µs/command" +
         (f" | ÷ {base}" if base else "") + " |")
    emit("|---|---|" + ("---|" if base else ""))
    for label in labels:
        v = CPU_TIMES[label]
        line = f"| {label} | {us(v)}"
        if base:
            line += f" | {run.spread(ratios(v, CPU_TIMES[base]), run.ratio)}"
        emit(line + " |")
    emit()


def us(values):
    return run.spread(values, run.us)


def ratios(a, b):
    return [x / y for x, y in zip(a, b)]


def section_layers(emit, start, stop_all, module, rb, today, rate, c,
                   requests, reps, client_cpu):
    n = c * ((1 << 15) - 1 + (1 << 14))
    bb = start("blockbloom", module)
    mods = [bb]
    if rb:
        mods.append(start("RedisBloom", rb))
    before = None
    if today:  # the earlier module: its own rates, layers probed in turn
        before = start("blockbloom-before", today)
        mods.append(before)
    info = {}
    for m in mods:
        log(f"layers: {m.name}: filling a 16-layer stack with {n} items")
        m.r.call("BF.RESERVE", "stack", str(rate), str(c), "EXPANSION", "2")
        t = time.time()
        fill(m.r, b"stack", 0, n)
        log(f"layers: {m.name}: filled in {time.time() - t:.0f} s")
        check_present(m.r, b"stack", 0, n)
        info[m.name] = run.bf_info(m.r, "stack")
        if int(info[m.name]["Number of filters"]) != 16:
            die(f"{m.name}: {info[m.name]['Number of filters']} layers, not 16")
    stack_size = int(info["blockbloom"]["Size"])
    cap1 = one_layer_of_size(bb.r, "one", rate, stack_size)
    fill(bb.r, b"one", 0, n)
    check_present(bb.r, b"one", 0, n)
    one_size = size_of(bb.r, "one")
    rand = ["__rand_int__"]
    jobs = [("blockbloom, 16 layers", bb, ["BF.EXISTS", "stack"] + rand,
             "bf.exists", 1),
            ("blockbloom, 1 layer of the same size", bb,
             ["BF.EXISTS", "one"] + rand, "bf.exists", 1),
            ("blockbloom, 16 layers, BF.MEXISTS of 32", bb,
             ["BF.MEXISTS", "stack"] + rand * 32, "bf.mexists", 10)]
    if before:
        cap_b = one_layer_of_size(before.r, "one", rate,
                                  int(info["blockbloom-before"]["Size"]))
        fill(before.r, b"one", 0, n)
        jobs += [("blockbloom-before, 16 layers (its own rates)", before,
                  ["BF.EXISTS", "stack"] + rand, "bf.exists", 1),
                 (f"blockbloom-before, 1 layer of the same size ({cap_b})",
                  before, ["BF.EXISTS", "one"] + rand, "bf.exists", 1)]
    if rb:
        jobs += [("RedisBloom, 16 layers", mods[1],
                  ["BF.EXISTS", "stack"] + rand, "bf.exists", 1),
                 ("RedisBloom, 16 layers, BF.MEXISTS of 32", mods[1],
                  ["BF.MEXISTS", "stack"] + rand * 32, "bf.mexists", 10)]
    res = bench_rounds(log, jobs, reps, client_cpu, requests)
    stop_all()

    emit(f"### BF.EXISTS on a stack grown to 16 layers")
    emit()
    emit(f"`BF.RESERVE stack {rate} {c} EXPANSION 2` filled with {n:,} items "
         "(15 full layers, the 16th half full): blockbloom "
         f"{stack_size / 2**20:.1f} MiB" +
         (f", RedisBloom {int(info['RedisBloom']['Size']) / 2**20:.1f} MiB"
          if rb else "") +
         f" (BF.INFO Size). The one-layer key: `BF.RESERVE one {rate} {cap1}` "
         f"({one_size / 2**20:.1f} MiB), the same items. redis-benchmark "
         f"-c 50 -P 32 -r 100000000 (random absent items), {reps} rounds, "
         "median [min-max] of INFO commandstats usec_per_call.")
    emit()
    emit("| key | µs/call | ÷ its module's one layer of the same size | "
         "÷ RedisBloom 16 layers |")
    emit("|---|---|---|---|")
    base = res["blockbloom, 1 layer of the same size"]
    rbs = res.get("RedisBloom, 16 layers")
    rbm = res.get("RedisBloom, 16 layers, BF.MEXISTS of 32")
    for label, *_ in jobs:
        v = res[label]
        mex = "MEXISTS" in label
        own = base
        if label.startswith("blockbloom-before"):
            own = next(res[k] for k in res
                       if k.startswith("blockbloom-before, 1 layer"))
        r1 = "-" if mex else run.spread(ratios(v, own), run.ratio)
        rr = "-"
        if rb:
            ref = rbm if mex else rbs
            rr = run.spread(ratios(v, ref), run.ratio)
        emit(f"| {label} | {us(v)} | {r1} | {rr} |")
    emit()
    cpu_note(emit, [label for label, *_ in jobs if "MEXISTS" not in label],
             "blockbloom, 1 layer of the same size")
    r16 = statistics.median(ratios(res["blockbloom, 16 layers"], base))
    emit("| target | measured | met |")
    emit("|---|---|---|")
    emit(f"| 16 layers <= 1.3x the one-layer key of the same size | "
         f"{r16:.2f}x | {'yes' if r16 <= 1.3 else 'NO'} |")
    if rb:
        rr = statistics.median(ratios(res["blockbloom, 16 layers"], rbs))
        emit(f"| 16 layers <= 0.5x RedisBloom's on the same stack | "
             f"{rr:.2f}x | {'yes' if rr <= 0.5 else 'NO'} |")
        cr = statistics.median(ratios(CPU_TIMES["blockbloom, 16 layers"],
                                      CPU_TIMES["RedisBloom, 16 layers"]))
        emit(f"| (the same in server CPU per command) | {cr:.2f}x | "
             f"{'yes' if cr <= 0.5 else 'NO'} |")
    c16 = statistics.median(ratios(
        CPU_TIMES["blockbloom, 16 layers"],
        CPU_TIMES["blockbloom, 1 layer of the same size"]))
    emit(f"| (16 layers ÷ one layer in server CPU per command) | {c16:.2f}x | "
         f"{'yes' if c16 <= 1.3 else 'NO'} |")
    emit()


def section_single(emit, start, stop_all, module, rb, today, rate, items,
                   requests, reps, client_cpu):
    mods = [start("blockbloom", module)]
    if today:
        mods.append(start("blockbloom-before", today))
    if rb:
        mods.append(start("RedisBloom", rb))
    spread_items = run.fill_items(items, 100_000_000)
    for m in mods:
        log(f"single: {m.name}: two filters of 1e9, {items} items each")
        m.r.call("SET", "str64", b"v" * 64)
        for key in (b"bf", b"bfadd"):
            m.r.call("BF.RESERVE", key, str(rate), "1000000000")
            run.multi(m.r, b"BF.MADD", key, spread_items)
        _, ones = run.multi(m.r, b"BF.MEXISTS", b"bf", spread_items[:20000])
        if ones != min(items, 20000):
            die(f"{m.name}: false negatives")
    del spread_items
    rand = ["__rand_int__"]
    workloads = [("GET", ["GET", "str64"], "get", 1),
                 ("BF.EXISTS", ["BF.EXISTS", "bf"] + rand, "bf.exists", 1),
                 ("BF.ADD", ["BF.ADD", "bfadd"] + rand, "bf.add", 1),
                 ("BF.MEXISTS of 32", ["BF.MEXISTS", "bf"] + rand * 32,
                  "bf.mexists", 10)]
    jobs = [(f"{m.name}: {w[0]}", m, w[1], w[2], w[3])
            for w in workloads for m in mods]
    res = bench_rounds(log, jobs, reps, client_cpu, requests)
    stop_all()

    emit("### One layer: single items and batches")
    emit()
    emit(f"`BF.RESERVE bf {rate} 1000000000` filled with {items:,} items "
         "(every page touched), per module; BF.ADD to a twin filter. "
         f"redis-benchmark -c 50 -P 32, {reps} interleaved rounds, median "
         "[min-max] of usec_per_call; ratios per round.")
    emit()
    names = [m.name for m in mods]
    head = "| command | " + " | ".join(f"{n} µs/call" for n in names)
    sep = "|---|" + "---|" * len(names)
    if rb:
        others = [n for n in names if n != "RedisBloom"]
        head += " | " + " | ".join(f"{n} ÷ RedisBloom" for n in others)
        sep += "---|" * len(others)
    emit(head + " |")
    emit(sep)
    for w in workloads:
        line = f"| {w[0]} | " + " | ".join(
            us(res[f"{n}: {w[0]}"]) for n in names)
        if rb:
            line += " | " + " | ".join(
                run.spread(ratios(res[f"{n}: {w[0]}"],
                                  res[f"RedisBloom: {w[0]}"]), run.ratio)
                for n in others)
        emit(line + " |")
    emit()
    if rb:
        emit("| target | measured | met |")
        emit("|---|---|---|")
        for w in ("BF.EXISTS", "BF.ADD"):
            now = statistics.median(ratios(res[f"blockbloom: {w}"],
                                           res[f"RedisBloom: {w}"]))
            if today:
                before = statistics.median(ratios(
                    res[f"blockbloom-before: {w}"], res[f"RedisBloom: {w}"]))
                emit(f"| {w} ÷ RedisBloom no worse than before "
                     f"({before:.2f}x) | {now:.2f}x | "
                     f"{'yes' if now <= before * 1.05 else 'NO'} (5% noise "
                     "allowance) |")
            else:
                emit(f"| {w} ÷ RedisBloom | {now:.2f}x | - |")
        mx = statistics.median(ratios(res["blockbloom: BF.MEXISTS of 32"],
                                      res["RedisBloom: BF.MEXISTS of 32"]))
        emit(f"| BF.MEXISTS of 32 <= 0.25x RedisBloom's per item | "
             f"{mx:.2f}x | {'yes' if mx <= 0.25 else 'NO'} |")
        cx = statistics.median(ratios(
            CPU_TIMES["blockbloom: BF.MEXISTS of 32"],
            CPU_TIMES["RedisBloom: BF.MEXISTS of 32"]))
        emit(f"| (the same in server CPU per command) | {cx:.2f}x | "
             f"{'yes' if cx <= 0.25 else 'NO'} |")
        emit()
    cpu_note(emit, [f"{n}: {w[0]}" for w in workloads for n in names])


def section_huge(emit, start, stop_all, module, huge, rate, items, requests,
                 reps, client_cpu, q):
    capacity = 10_000_000 if q else 820_000_000  # ~1 GiB at 0.82%
    mods = [start("4 KiB pages", module), start("huge pages", huge)]
    spread_items = run.fill_items(items, 100_000_000)
    for m in mods:
        m.r.call("BF.RESERVE", "bf", str(rate), str(capacity))
        run.multi(m.r, b"BF.MADD", b"bf", spread_items)
    del spread_items
    size = size_of(mods[0].r, "bf")
    rand = ["__rand_int__"]
    jobs = [(f"{m.name}: BF.EXISTS", m, ["BF.EXISTS", "bf"] + rand,
             "bf.exists", 1) for m in mods]
    jobs += [(f"{m.name}: BF.ADD", m, ["BF.ADD", "bf"] + rand, "bf.add", 1)
             for m in mods]
    res = bench_rounds(log, jobs, reps, client_cpu, requests)
    # BGSAVE: fork time, copy-on-write, adds while the child runs.
    fork = {}
    for m in mods:
        m.r.call("CONFIG", "RESETSTAT")
        m.r.call("BGSAVE")
        run.redis_benchmark(m.server.port, client_cpu, 50, 32,
                            max(1000, requests // 4),
                            ["BF.ADD", "bf"] + rand)
        calls, usec = m.r.commandstats()["bf.add"]
        while m.r.info("persistence").get("rdb_bgsave_in_progress") == "1":
            time.sleep(0.1)
        st = m.r.info("stats")
        ps = m.r.info("persistence")
        fork[m.name] = (int(st["latest_fork_usec"]), usec / calls,
                        int(ps.get("rdb_last_cow_size", 0)))
        os.remove(os.path.join(m.workdir, "dump.rdb"))
    stop_all()
    emit("### Huge pages (prototype build)")
    emit()
    emit(f"`BF.RESERVE bf {rate} {capacity}` ({size / 2**30:.2f} GiB), "
         f"{items:,} items (every page touched); {reps} interleaved rounds, "
         "median [min-max] usec_per_call.")
    emit()
    emit("| | 4 KiB pages | huge pages | huge ÷ 4 KiB |")
    emit("|---|---|---|---|")
    for w in ("BF.EXISTS", "BF.ADD"):
        a, b = res[f"4 KiB pages: {w}"], res[f"huge pages: {w}"]
        emit(f"| {w} µs/call | {us(a)} | {us(b)} | "
             f"{run.spread(ratios(b, a), run.ratio)} |")
    for w in ("BF.EXISTS", "BF.ADD"):
        a, b = CPU_TIMES[f"4 KiB pages: {w}"], CPU_TIMES[f"huge pages: {w}"]
        emit(f"| {w} server CPU µs/command | {us(a)} | {us(b)} | "
             f"{run.spread(ratios(b, a), run.ratio)} |")
    a, b = fork["4 KiB pages"], fork["huge pages"]
    emit(f"| BGSAVE fork (latest_fork_usec) | {a[0]} | {b[0]} | "
         f"{b[0] / max(1, a[0]):.2f}x |")
    emit(f"| BF.ADD µs/call while the child runs | {a[1]:.3f} | {b[1]:.3f} | "
         f"{b[1] / a[1]:.2f}x |")
    emit(f"| copy-on-write bytes (rdb_last_cow_size) | {a[2]:,} | {b[2]:,} | "
         f"{b[2] / max(1, a[2]):.2f}x |")
    emit()


if __name__ == "__main__":
    main()
