#!/usr/bin/python3
"""Instructions (and simulated cache misses) per command inside redis-server.

Where the module's time goes, independent of the machine's load: runs
redis-server with the module under callgrind, collecting only inside Redis's
`call()` (the span INFO commandstats times: the command itself plus its
statistics), and counts per command, for GET of a 64-byte string, BF.EXISTS,
BF.ADD and BF.MEXISTS of 32, each driven by redis-benchmark with random items
(-r 100000000, pipeline 32). Between phases `callgrind_control --dump`
separates the counts. With --cache-sim (default on) it also gives the
simulated last-level data misses per command (the probe of a filter much
larger than the cache should cost one).

  bench/redis_module/profile.py [--build=DIR] [--module=PATH] [--capacity=1e7]
                             [--items=300000] [--commands=20000]

Needs valgrind. A few minutes (the server runs ~50x slower under callgrind).
"""

import argparse
import glob
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def resp(*args):
    out = [b"*%d\r\n" % len(args)]
    for a in args:
        a = a if isinstance(a, bytes) else str(a).encode()
        out.append(b"$%d\r\n%s\r\n" % (len(a), a))
    return b"".join(out)


class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port))
        self.f = self.s.makefile("rb")

    def read(self):
        line = self.f.readline()
        k = line[:1]
        if k == b"-":
            raise RuntimeError(line.decode())
        if k in (b"+", b":"):
            return line[1:-2]
        if k == b"$":
            n = int(line[1:-2])
            return None if n < 0 else self.f.read(n + 2)[:-2]
        if k == b"*":
            return [self.read() for _ in range(int(line[1:-2]))]
        raise RuntimeError(repr(line))

    def call(self, *args):
        self.s.sendall(resp(*args))
        return self.read()


def totals(path):
    """events and totals of a callgrind dump."""
    events = totals_line = None
    with open(path) as f:
        for line in f:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("totals:") or line.startswith("summary:"):
                totals_line = [int(x) for x in line.split()[1:]]
    return dict(zip(events, totals_line or [0] * len(events)))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build/release")
    ap.add_argument("--module")
    ap.add_argument("--capacity", type=float, default=1e7)
    ap.add_argument("--error", default="0.01")
    ap.add_argument("--items", type=int, default=300_000)
    ap.add_argument("--commands", type=int, default=20_000)
    ap.add_argument("--no-cache-sim", action="store_true")
    ap.add_argument("--top", type=int, default=0,
                    help="also print each phase's N costliest functions "
                    "(callgrind_annotate, inclusive of nothing: self cost)")
    args = ap.parse_args()
    os.chdir(REPO)
    module = os.path.abspath(args.module or os.path.join(
        args.build, "src", "redis_module", "blockbloom.so"))
    if not os.path.exists(module):
        sys.exit(f"profile: no {module}")
    if shutil.which("valgrind") is None:
        sys.exit("profile: no valgrind")
    work = tempfile.mkdtemp(prefix="blockbloom-redis-module-profile-")
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    out = os.path.join(work, "callgrind.out")
    cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no",
           "--toggle-collect=call", f"--callgrind-out-file={out}"]
    if not args.no_cache_sim:
        cmd.append("--cache-sim=yes")
    cmd += ["redis-server", "--port", str(port), "--bind", "127.0.0.1",
            "--save", "", "--appendonly", "no", "--dir", work,
            "--loadmodule", module]
    server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                              stderr=open(os.path.join(work, "valgrind.log"), "w"))
    try:
        for _ in range(600):
            try:
                c = Conn(port)
                c.call("PING")
                break
            except OSError:
                time.sleep(0.1)
        else:
            sys.exit("profile: redis-server under valgrind did not start")
        cap = str(int(args.capacity))
        c.call("SET", "str64", b"v" * 64)
        c.call("BF.RESERVE", "bf", args.error, cap)
        c.call("BF.RESERVE", "bfadd", args.error, cap)
        step = max(1, 100_000_000 // max(1, args.items))
        for key in (b"bf", b"bfadd"):
            for start in range(0, args.items, 1000):
                items = [b"%012d" % (i * step)
                         for i in range(start, min(args.items, start + 1000))]
                c.call(b"BF.MADD", key, *items)
        info = c.call("BF.INFO", "bf")

        def ctl(*a):
            subprocess.run(["callgrind_control", *a, str(server.pid)],
                           check=True, stdout=subprocess.DEVNULL)

        phases = [
            ("GET (64-byte string)", ["GET", "str64"], 1),
            ("BF.EXISTS", ["BF.EXISTS", "bf", "__rand_int__"], 1),
            ("BF.ADD", ["BF.ADD", "bfadd", "__rand_int__"], 1),
            ("BF.MEXISTS of 32", ["BF.MEXISTS", "bf"] + ["__rand_int__"] * 32, 32),
        ]
        ctl("--zero")
        rows = []
        for i, (label, command, _) in enumerate(phases):
            n = args.commands // (4 if len(command) > 3 else 1)
            subprocess.run(["redis-benchmark", "-p", str(port), "-c", "1",
                            "-P", "32", "-n", str(n), "-r", "100000000", "-q"]
                           + command, check=True, stdout=subprocess.DEVNULL)
            ctl(f"--dump=phase{i}")
            rows.append((label, n))
        time.sleep(1)
        dumps = sorted(glob.glob(out + "*"), key=os.path.getmtime)
        # The dumps of the phases, in order (the final dump at exit comes last).
        by_phase = {}
        paths = {}
        for d in dumps:
            with open(d) as f:
                head = f.read(4096)
            m = re.search(r"^desc: Trigger: .*phase(\d+)", head, re.M)
            if m:
                by_phase[int(m.group(1))] = totals(d)
                paths[int(m.group(1))] = d
        print(f"Per command inside call(), under callgrind: filter BF.RESERVE "
              f"bf {args.error} {cap} (BF.INFO {info}), {args.items} items;"
              f" redis-benchmark -c 1 -P 32 -r 100000000.")
        print()
        head = "| command | commands | instructions/command |"
        sep = "|---|---|---|"
        if not args.no_cache_sim:
            head += " D1 read misses | LL data misses (read + write) |"
            sep += "---|---|"
        print(head)
        print(sep)
        for i, (label, n) in enumerate(rows):
            t = by_phase.get(i, {})
            line = f"| {label} | {n} | {t.get('Ir', 0) / n:.0f} |"
            if not args.no_cache_sim:
                line += (f" {t.get('D1mr', 0) / n:.2f} |"
                         f" {(t.get('DLmr', 0) + t.get('DLmw', 0)) / n:.2f} |")
            print(line)
        for i, (label, n) in enumerate(rows):
            if not args.top or i not in paths:
                continue
            text = subprocess.run(
                ["callgrind_annotate", "--threshold=100", paths[i]],
                capture_output=True, text=True).stdout
            print()
            print(f"{label}: self instructions per command by function")
            shown = 0
            for line in text.splitlines():
                m = re.match(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+(\S.*)$", line) or \
                    re.match(r"^\s*([\d,]+)\s+(\S.*)$", line)
                if not m or "PROGRAM TOTALS" in line or "file:function" in line:
                    continue
                ir = int(m.group(1).replace(",", ""))
                print(f"  {ir / n:8.1f}  {m.group(2)[:110]}")
                shown += 1
                if shown == args.top:
                    break
    finally:
        server.terminate()
        try:
            server.wait(60)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
