#!/usr/bin/env python3
"""Smoke test of blockbloom_cache_guard: starts redis-server on a free
loopback port, runs the example with small sizes and checks what it must
show: exit 0 (no real user refused), fewer database reads with the guard
than without, and the fail-open run reading the database like no guard.

    cache_guard_smoke.py BLOCKBLOOM_CACHE_GUARD REDIS_SERVER
"""
import os
import re
import subprocess
import sys
import tempfile

# The shared RedisServer helper (a free port, retried if another process
# takes it first; never another test's server).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "tests", "cli"))
from redis_support import RedisServer  # noqa: E402


def main():
    example, redis_server = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory(prefix="blockbloom_cache_guard_") as d:
        server = RedisServer(redis_server, d)
        try:
            result = subprocess.run(
                [example, "--redis_url=" + server.url,
                 "--users=2000", "--requests=6000", "--attack_fraction=0.5"],
                capture_output=True, text=True, timeout=300)
        finally:
            server.stop()
    print(result.stdout, result.stderr)
    if result.returncode != 0:
        sys.exit("exit %d" % result.returncode)
    rows = {}
    for line in result.stdout.splitlines():
        match = re.match(r"(no guard|shared-filter guard|guard, filter deleted)"
                         r"\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+\S+"
                         r"\s+(\d+)", line)
        if match:
            rows[match.group(1)] = [int(g) for g in match.groups()[1:]]
    if len(rows) != 3:
        sys.exit("expected three result rows")
    db_reads, missing = 3, 5
    plain, guarded, lost = (rows["no guard"], rows["shared-filter guard"],
                            rows["guard, filter deleted"])
    if not guarded[db_reads] < plain[db_reads]:
        sys.exit("the guard did not save database reads")
    if lost[db_reads] != plain[db_reads]:
        sys.exit("failing open should read the database like no guard")
    if plain[missing] + guarded[missing] + lost[missing]:
        sys.exit("a real user was refused")
    print("ok")


if __name__ == "__main__":
    main()
