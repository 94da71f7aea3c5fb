#!/usr/bin/env python3
"""End-to-end tests of `blockbloom redis` against a real redis-server that
each test starts on a free loopback port (and stops, also on failure).

    redis_cli_test.py --blockbloom=PATH [--redis_server=PATH] [unittest args]

Deterministic: fixed keys, no timing assertions.
"""

import argparse
import json
import os
import shutil
import stat
import sys
import unittest

import cli_test
from cli_test import (EXIT_BAD_INPUT, EXIT_REDIS, EXIT_USAGE,
                      EXIT_WRITE_ERROR, lines, numbered)
from redis_support import RedisServer, free_port

REDIS_SERVER = None


class RedisCliTestCase(cli_test.CliTestCase):
    """cli_test's test case (a temporary directory, check_run, build, ...)
    with a private redis-server per test."""

    def setUp(self):
        super().setUp()
        try:
            self.server = RedisServer(REDIS_SERVER, self.dir)
        except BaseException:
            super().tearDown()
            raise
        self.url = "--url=" + self.server.url

    def tearDown(self):
        self.server.stop()
        super().tearDown()

    def redis_query(self, args, keys):
        """The answers of `blockbloom ARGS` for `keys`, as a list of 0/1."""
        out = self.check_run(args, stdin=lines(keys)).stdout.decode()
        return [int(line) for line in out.split()]


class PushPullTest(RedisCliTestCase):

    def test_push_query_info_pull_delete(self):
        keys = numbered(b"user:", 20000)
        absent = numbered(b"visitor:", 20000)
        local = self.build(keys, "users.bbf", ["--seed=12345"])
        name = ["--name=users", self.url]
        out = self.check_run(["redis", "push", local] + name).stdout.decode()
        self.assertIn("as 'users'", out)
        self.assertIn("--seed=12345", out)  # the seed is not in Redis
        seed = ["--seed=12345"]

        # No false negatives, and the same answers as the local filter.
        self.assertEqual(
            self.redis_query(["redis", "query"] + name + seed, keys),
            [1] * len(keys))
        remote = self.redis_query(["redis", "query"] + name + seed, absent)
        self.assertEqual(remote, self.redis_query(["query", local], absent))
        info = json.loads(self.check_run(["info", "--json", local]).stdout)
        fpr = sum(remote) / len(absent)
        self.assertLess(abs(fpr - info["estimated_fp_rate"]), 0.004)
        count = json.loads(self.check_run(
            ["redis", "query", "--count"] + name + seed,
            stdin=lines(absent)).stdout)
        self.assertEqual(count, {"queried": len(absent),
                                 "may_contain": sum(remote)})

        # info: the shape of the local filter, keys estimated from the bits.
        shared = json.loads(self.check_run(
            ["redis", "info", "--json"] + name + seed).stdout)
        for field in ("num_probes", "num_blocks", "lane_bits", "seed",
                      "bits_bytes"):
            self.assertEqual(shared[field], info[field], field)
        self.assertEqual(shared["name"], "users")
        self.assertEqual(shared["num_shards"], 1)
        self.assertIsNone(shared["ttl_seconds"])
        self.assertLess(abs(shared["estimated_keys"] - len(keys)),
                        4 * info["estimated_keys_stderr"] + 1)
        text = self.check_run(["redis", "info"] + name + seed).stdout.decode()
        for label in ("server:", "name:", "probes (k):", "blocks:", "shards:",
                      "expires in:", "estimated distinct keys:",
                      "estimated FPR:"):
            self.assertIn(label, text)

        # pull: a filter file that answers exactly like the original.
        pulled = self.path("pulled.bbf")
        self.check_run(["redis", "pull", "-o", pulled] + name + seed)
        for probe in (keys, absent):
            self.assertEqual(self.redis_query(["query", pulled], probe),
                             self.redis_query(["query", local], probe))
        self.assertEqual(json.loads(self.check_run(
            ["info", "--json", pulled]).stdout)["seed"], 12345)

        # delete: gone, and deleting again is fine.
        self.check_run(["redis", "delete"] + name)
        result = self.check_run(["redis", "info"] + name + seed,
                                code=EXIT_REDIS)
        self.assertIn(b"no shared filter named", result.stderr)
        self.check_run(["redis", "delete"] + name)

    def test_shards_expiry_and_replace(self):
        keys = numbered(b"k", 50000)
        local = self.build(keys, "big.bbf")
        name = ["--name=big", self.url]
        # 62,528 bytes of bits in shards of 16 KiB: 4 shards.
        self.check_run(["redis", "push", local, "--shard_bytes=16384",
                        "--expire=1h"] + name)
        shared = json.loads(self.check_run(["redis", "info", "--json"] +
                                           name).stdout)
        self.assertEqual(shared["num_shards"], 4)
        self.assertGreater(shared["ttl_seconds"], 3500)
        self.assertEqual(self.redis_query(["redis", "query"] + name, keys),
                         [1] * len(keys))
        # A second push needs --replace; then the new filter answers.
        other = numbered(b"other", 1000)
        replacement = self.build(other, "other.bbf",
                                 ["--nocompact_small_filters"])
        result = self.check_run(["redis", "push", replacement] + name,
                                code=EXIT_REDIS)
        self.assertIn(b"--replace", result.stderr)
        self.check_run(["redis", "push", replacement, "--replace"] + name)
        self.assertEqual(self.redis_query(["redis", "query"] + name, other),
                         [1] * len(other))
        shared = json.loads(self.check_run(["redis", "info", "--json"] +
                                           name).stdout)
        self.assertEqual(shared["num_shards"], 1)


    def test_pull_output_kinds(self):
        # -o as for build (tools/output_file.h): a device node is written
        # into, never replaced; a directory is refused before connecting; a
        # regular file keeps its mode.
        local = self.build(numbered(b"k", 5000), "f.bbf")
        name = ["--name=f", self.url]
        self.check_run(["redis", "push", local] + name)
        try:
            null = self.path("null")
            os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        except PermissionError:
            null = None  # no privilege to make device nodes: FIFO only
        if null is not None:
            out = self.check_run(["redis", "pull", "-o", null] + name).stdout
            self.assertIn(b"bytes written to", out)
            self.assertTrue(stat.S_ISCHR(os.lstat(null).st_mode))
        os.mkdir(self.path("dir"))
        nowhere = "--url=redis://127.0.0.1:%d" % free_port()
        result = self.check_run(["redis", "pull", "-o", self.path("dir"),
                                 "--name=f", nowhere], code=EXIT_WRITE_ERROR)
        self.assertIn(b"is a directory", result.stderr)
        self.assertEqual(os.listdir(self.path("dir")), [])
        pulled = self.path("pulled.bbf")
        self.check_run(["redis", "pull", "-o", pulled] + name)
        os.chmod(pulled, 0o600)
        self.check_run(["redis", "pull", "-o", pulled] + name)
        self.assertEqual(stat.S_IMODE(os.stat(pulled).st_mode), 0o600)


class ErrorTest(RedisCliTestCase):

    def test_connection_refused(self):
        port = free_port()  # nothing listens there
        result = self.check_run(
            ["redis", "info", "--name=users",
             "--url=redis://127.0.0.1:%d" % port], code=EXIT_REDIS)
        self.assertIn(b"127.0.0.1:%d" % port, result.stderr)
        self.assertIn(b"refused", result.stderr.lower())

    def test_missing_or_unknown_filter(self):
        result = self.check_run(["redis", "info", self.url], code=EXIT_USAGE)
        self.assertIn(b"--name", result.stderr)
        result = self.check_run(["redis", "query", "--name=nope", self.url],
                                stdin=b"a\n", code=EXIT_REDIS)
        self.assertIn(b"no shared filter named \"nope\"", result.stderr)
        # A key of another kind under the name is refused, and not deleted.
        self.assertEqual(self.server.command(b"SET", b"bb:{str}", b"x"),
                         b"+OK")
        result = self.check_run(["redis", "info", "--name=str", self.url],
                                code=EXIT_REDIS)
        self.assertIn(b"not a blockbloom filter", result.stderr)

    def test_wrong_seed(self):
        local = self.build(numbered(b"k", 5000), "s.bbf", ["--seed=7"])
        name = ["--name=s", self.url]
        self.check_run(["redis", "push", local] + name)
        result = self.check_run(["redis", "info"] + name, code=EXIT_REDIS)
        self.assertIn(b"seed", result.stderr)
        self.check_run(["redis", "info", "--seed=7"] + name)

    def test_compact_filter_is_refused_with_the_fix(self):
        keys = numbered(b"k", 10)
        compact = self.build(keys, "compact.bbf")
        result = self.check_run(["redis", "push", compact, "--name=c",
                                 self.url], code=EXIT_BAD_INPUT)
        self.assertIn(b"--nocompact_small_filters", result.stderr)
        blocks = self.build(keys, "blocks.bbf", ["--nocompact_small_filters"])
        self.check_run(["redis", "push", blocks, "--name=c", self.url])
        self.assertEqual(
            self.redis_query(["redis", "query", "--name=c", self.url], keys),
            [1] * len(keys))

    def test_usage_errors(self):
        local = self.build(numbered(b"k", 5000), "f.bbf")
        for args in (["redis"], ["redis", "frob", "--name=a"],
                     ["redis", "push", "--name=a"],
                     ["redis", "push", local, local, "--name=a"],
                     ["redis", "pull", "--name=a"],
                     ["redis", "pull", "--name=a", "-o", "-"],
                     ["redis", "pull", "--name=a", "--json", "-o", "x"],
                     ["redis", "info", "--name=a", "--replace"],
                     ["redis", "delete", "--name=a", "--seed=3"],
                     ["redis", "info", "--name=a", "--url=http://x"],
                     ["redis", "info", "--name=a", "--bits_per_key=3"]):
            with self.subTest(args=args):
                result = self.check_run(args + [self.url] if not any(
                    a.startswith("--url") for a in args) else args,
                                        code=EXIT_USAGE)
                self.assertNotEqual(result.stderr, b"")

    def test_bad_flags_are_refused_before_connecting(self):
        local = self.build(numbered(b"k", 5000), "f.bbf")
        nowhere = "--url=redis://127.0.0.1:%d" % free_port()
        result = self.check_run(["redis", "push", local, "--name=a",
                                 "--shard_bytes=10", nowhere],
                                code=EXIT_USAGE)
        self.assertIn(b"--shard_bytes must be in", result.stderr)
        # A URL that does not parse is quoted without its password.
        result = self.check_run(["redis", "info", "--name=a",
                                 "--url=redis://alice:hunter2@h:0"],
                                code=EXIT_USAGE)
        self.assertNotIn(b"hunter2", result.stderr)
        self.assertIn(b"alice:***@h", result.stderr)

    def test_push_of_a_filter_without_a_key_count(self):
        local = self.build(numbered(b"k", 10), "c.bbf",
                           ["--encoding=compact", "--nocompact_small_filters"])
        out = self.check_run(["redis", "push", local, "--name=c",
                              self.url]).stdout
        self.assertIn(b"key count not stored", out)

    def test_help(self):
        text = self.check_run(["help", "redis"]).stdout.decode()
        for word in ("redis push", "redis pull", "redis query", "redis info",
                     "redis delete", "--url", "--name", "--shard_bytes",
                     "--expire", "--replace", "Exit codes", "  4  "):
            self.assertIn(word, text)


def main():
    global REDIS_SERVER
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--blockbloom", required=True)
    parser.add_argument("--redis_server", default="redis-server")
    args, rest = parser.parse_known_args()
    cli_test.BLOCKBLOOM = os.path.abspath(args.blockbloom)
    REDIS_SERVER = shutil.which(args.redis_server)
    if REDIS_SERVER is None:
        sys.exit("redis-server not found: %s" % args.redis_server)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
