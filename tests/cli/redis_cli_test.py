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
import signal
import stat
import subprocess
import sys
import time
import unittest

import cli_support
from cli_support import (EXIT_BAD_INPUT, EXIT_OK, EXIT_REDIS, EXIT_USAGE,
                         EXIT_WRITE_ERROR, lines, numbered)
from redis_support import RedisServer, free_port

REDIS_SERVER = None


class RedisCliTestCase(cli_support.CliTestCase):
    """cli_support's test case (a temporary directory, check_run, build,
    ...) with a private redis-server per test."""

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


class PublishDownloadTest(RedisCliTestCase):

    def test_publish_query_info_download_delete(self):
        keys = numbered(b"user:", 20000)
        absent = numbered(b"visitor:", 20000)
        local = self.build(keys, "users.bbf", ["--seed=12345"])
        name = ["--name=users", self.url]
        out = self.check_run(["redis", "publish", local] +
                             name).stdout.decode()
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
        # The same SIMD target as the local info: one process, one rule.
        for field in ("simd_target", "simd_target_source"):
            self.assertEqual(shared[field], info[field], field)
        self.assertLess(abs(shared["estimated_keys"] - len(keys)),
                        4 * info["estimated_keys_stderr"] + 1)
        text = self.check_run(["redis", "info"] + name + seed).stdout.decode()
        for label in ("server:", "name:", "probes (k):", "blocks:", "shards:",
                      "expires in:", "estimated distinct keys:",
                      "estimated FPR:", "SIMD target:"):
            self.assertIn(label, text)

        # download: a filter file that answers exactly like the original.
        downloaded = self.path("downloaded.bbf")
        self.check_run(["redis", "download", "-o", downloaded] + name + seed)
        for probe in (keys, absent):
            self.assertEqual(self.redis_query(["query", downloaded], probe),
                             self.redis_query(["query", local], probe))
        self.assertEqual(json.loads(self.check_run(
            ["info", "--json", downloaded]).stdout)["seed"], 12345)

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
        self.check_run(["redis", "publish", local, "--shard_bytes=16384",
                        "--expire=1h"] + name)
        shared = json.loads(self.check_run(["redis", "info", "--json"] +
                                           name).stdout)
        self.assertEqual(shared["num_shards"], 4)
        self.assertGreater(shared["ttl_seconds"], 3500)
        self.assertEqual(self.redis_query(["redis", "query"] + name, keys),
                         [1] * len(keys))
        # A second publish needs --replace; then the new filter answers.
        other = numbered(b"other", 1000)
        replacement = self.build(other, "other.bbf",
                                 ["--nocompact_small_filters"])
        result = self.check_run(["redis", "publish", replacement] + name,
                                code=EXIT_REDIS)
        self.assertIn(b"--replace", result.stderr)
        self.check_run(["redis", "publish", replacement, "--replace"] + name)
        self.assertEqual(self.redis_query(["redis", "query"] + name, other),
                         [1] * len(other))
        shared = json.loads(self.check_run(["redis", "info", "--json"] +
                                           name).stdout)
        self.assertEqual(shared["num_shards"], 1)


    def test_download_output_kinds(self):
        # -o as for build (tools/output_file.h): a device node is written
        # into, never replaced; a directory is refused before connecting; a
        # regular file keeps its mode.
        local = self.build(numbered(b"k", 5000), "f.bbf")
        name = ["--name=f", self.url]
        self.check_run(["redis", "publish", local] + name)
        try:
            null = self.path("null")
            os.mknod(null, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        except PermissionError:
            null = None  # no privilege to make device nodes: FIFO only
        if null is not None:
            out = self.check_run(["redis", "download", "-o", null] +
                                 name).stdout
            self.assertIn(b"bytes written to", out)
            self.assertTrue(stat.S_ISCHR(os.lstat(null).st_mode))
        os.mkdir(self.path("dir"))
        nowhere = "--url=redis://127.0.0.1:%d" % free_port()
        result = self.check_run(["redis", "download", "-o", self.path("dir"),
                                 "--name=f", nowhere], code=EXIT_WRITE_ERROR)
        self.assertIn(b"is a directory", result.stderr)
        self.assertEqual(os.listdir(self.path("dir")), [])
        downloaded = self.path("downloaded.bbf")
        self.check_run(["redis", "download", "-o", downloaded] + name)
        os.chmod(downloaded, 0o600)
        self.check_run(["redis", "download", "-o", downloaded] + name)
        self.assertEqual(stat.S_IMODE(os.stat(downloaded).st_mode), 0o600)


class LifecycleTest(RedisCliTestCase):
    """A publish that is interrupted, or that a server evicts from, never
    leaves keys behind for good, and never reports success (issue 18)."""

    def big_filter(self):
        """A filter of 64 MiB of bits holding one key, and the publish
        arguments that upload it in 256 shards."""
        one = self.write("one.txt", b"the only key\n")
        big = self.path("big.bbf")
        self.check_run(["build", "--quiet", "--bits_per_key=%d" % (64 << 23),
                        one, "-o", big])
        return ["redis", "publish", big, "--name=big", "--shard_bytes=262144",
                self.url + "?timeout=30000"]

    def start_publish_and_pause(self, args):
        """Starts `blockbloom ARGS` and pauses the server's writes as soon
        as the first shards are there: the publish is then midway."""
        proc = subprocess.Popen([cli_support.BLOCKBLOOM] + args,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while not self.server.keys(b"bb:{big}:*"):
            if proc.poll() is not None:
                self.fail("the publish ended before its shards showed: %r" %
                          (proc.communicate(),))
            self.assertLess(time.monotonic(), deadline)
        self.assertEqual(self.server.command(b"CLIENT", b"PAUSE", b"20000",
                                              b"WRITE"), b"+OK")
        return proc

    def test_killed_publish_leaves_only_expiring_shards(self):
        proc = self.start_publish_and_pause(self.big_filter())
        try:
            proc.kill()  # SIGKILL: no cleanup possible
            proc.communicate(timeout=60)
        finally:
            self.server.command(b"CLIENT", b"UNPAUSE")
        self.assertEqual(self.server.command(b"EXISTS", b"bb:{big}"), b":0")
        shards = self.server.keys(b"bb:{big}:*")
        self.assertTrue(shards)
        for key in shards:
            ttl = int(self.server.command(b"PTTL", key)[1:])
            self.assertGreater(ttl, 0, key)  # -1 would be forever
            self.assertLessEqual(ttl, 10 * 60 * 1000, key)
        # delete finds them although no filter names them.
        out = self.check_run(["redis", "delete", "--name=big",
                              self.url]).stdout
        self.assertIn(b"orphaned shard", out)
        self.assertEqual(self.server.keys(), [])

    def test_interrupted_publish_cleans_up(self):
        proc = self.start_publish_and_pause(self.big_filter())
        try:
            proc.send_signal(signal.SIGINT)
        finally:
            self.server.command(b"CLIENT", b"UNPAUSE")
        _, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, -signal.SIGINT, err)
        self.assertIn(b"interrupted", err)
        self.assertEqual(self.server.keys(), [])

    def test_published_shards_have_the_filters_expiry(self):
        # Pending shards expire; published ones keep the filter's own
        # expiry (none, or --expire).
        local = self.build(numbered(b"k", 20000), "f.bbf")
        for flags, low, high in (([], -1, -1),
                                 (["--expire=1h", "--replace"], 3500000,
                                  3600000)):
            self.check_run(["redis", "publish", local, "--name=f",
                            "--shard_bytes=4096", self.url] + flags)
            keys = self.server.keys(b"bb:{f}*")
            self.assertGreater(len(keys), 5)
            for key in keys:
                ttl = int(self.server.command(b"PTTL", key)[1:])
                self.assertTrue(low <= ttl <= high, (key, ttl))

    def test_evicted_shards_fail_the_publish(self):
        # A server that evicts any key when short of memory drops shards
        # while the others go up: the publish fails (exit 4), says why, and
        # leaves nothing; the policy is warned about first.
        evicting = RedisServer(REDIS_SERVER, self.dir, extra_args=[
            "--maxmemory", "8mb", "--maxmemory-policy", "allkeys-random"])
        self.addCleanup(evicting.stop)
        one = self.write("one.txt", b"the only key\n")
        big = self.path("big.bbf")
        self.check_run(["build", "--quiet", "--compression=zstd",
                        "--bits_per_key=%d" % (32 << 23), one, "-o", big])
        result = self.check_run(["redis", "publish", big, "--name=big",
                                 "--shard_bytes=1048576",
                                 "--url=" + evicting.url],
                                code=EXIT_REDIS)
        err = result.stderr.decode()
        self.assertIn("warning", err)
        self.assertIn("allkeys-random", err)
        self.assertIn("evict", err.split("error:", 1)[1])
        self.assertEqual(result.stdout, b"")
        self.assertEqual(evicting.keys(b"bb:*"), [])
        # A server that never evicts gets no warning.
        result = self.check_run(["redis", "publish", big, "--name=big",
                                 self.url])
        self.assertEqual(result.stderr, b"")

    def test_lost_report_is_an_error(self):
        local = self.build(numbered(b"k", 5000), "f.bbf")
        keys = self.path("f.bbf.keys")
        name = ["--name=f", self.url]
        for args in (["redis", "publish", local] + name,
                     ["redis", "download", "-o", self.path("p.bbf")] + name,
                     ["redis", "info"] + name,
                     ["redis", "query", keys] + name,
                     ["redis", "delete"] + name):
            with self.subTest(args=args[:2]):
                with open("/dev/full", "wb") as full:
                    result = subprocess.run([cli_support.BLOCKBLOOM] + args,
                                            stdout=full,
                                            stderr=subprocess.PIPE,
                                            timeout=120)
                self.assertEqual(result.returncode, EXIT_WRITE_ERROR,
                                 result.stderr)
                self.assertIn(b"No space left on device", result.stderr)


class PasswordTest(RedisCliTestCase):
    """The password can stay out of the command line (ps): a file or the
    environment (issue 18). It is never printed."""

    PASSWORD = "pa:ss@w%rd/s3cret?"

    def setUp(self):
        super().setUp()
        self.secure = RedisServer(REDIS_SERVER, self.dir, extra_args=[
            "--requirepass", self.PASSWORD])
        self.addCleanup(self.secure.stop)
        self.local = self.build(numbered(b"k", 5000), "f.bbf")

    def run_env(self, args, env=None, code=EXIT_OK):
        environment = {k: v for k, v in os.environ.items()
                       if k != "BLOCKBLOOM_REDIS_PASSWORD"}
        environment.update(env or {})
        result = cli_support.run(args, env=environment)
        self.assertEqual(result.returncode, code, result.stderr)
        for stream in (result.stdout, result.stderr):
            self.assertNotIn(self.PASSWORD.encode(), stream)
        return result

    def password_file(self, text, mode=0o600):
        path = self.write("password", text)
        os.chmod(path, mode)
        return "--password_file=" + path

    def test_from_the_environment(self):
        url = "--url=" + self.secure.url
        env = {"BLOCKBLOOM_REDIS_PASSWORD": self.PASSWORD}
        self.run_env(["redis", "publish", self.local, "--name=f", url], env)
        self.run_env(["redis", "info", "--name=f", url], env)
        # Without it: refused by the server.
        self.run_env(["redis", "info", "--name=f", url], code=EXIT_REDIS)
        # A wrong one: the message says where it came from, not what it is.
        result = self.run_env(["redis", "info", "--name=f", url],
                              {"BLOCKBLOOM_REDIS_PASSWORD": "wrong-one"},
                              code=EXIT_REDIS)
        self.assertIn(b"BLOCKBLOOM_REDIS_PASSWORD", result.stderr)
        self.assertNotIn(b"wrong-one", result.stderr)

    def test_from_a_file(self):
        url = "--url=" + self.secure.url
        flag = self.password_file((self.PASSWORD + "\n").encode())
        result = self.run_env(["redis", "publish", self.local, "--name=f", url,
                               flag])
        self.assertEqual(result.stderr, b"")
        for sub in (["info"], ["download", "-o", self.path("p.bbf")],
                    ["delete"]):
            with self.subTest(sub=sub[0]):
                self.run_env(["redis"] + sub + ["--name=f", url, flag])
        # Readable by others: works, with a warning.
        flag = self.password_file((self.PASSWORD + "\r\n").encode(), 0o644)
        result = self.run_env(["redis", "publish", self.local, "--name=f", url,
                               flag])
        self.assertIn(b"chmod 600", result.stderr)
        # The file wins over the environment; both in URL and file: refused.
        self.run_env(["redis", "info", "--name=f", url, flag],
                     {"BLOCKBLOOM_REDIS_PASSWORD": "wrong-one"})
        self.run_env(["redis", "info", "--name=f", flag,
                      "--url=redis://:x@127.0.0.1:%d" % self.secure.port],
                     code=EXIT_USAGE)
        # A file that is missing or empty.
        self.run_env(["redis", "info", "--name=f", url,
                      "--password_file=" + self.path("nope")],
                     code=EXIT_BAD_INPUT)
        self.run_env(["redis", "info", "--name=f", url,
                      self.password_file(b"\n")], code=EXIT_USAGE)

    def test_acl_user_with_the_password_in_a_file(self):
        self.assertEqual(self.secure.command(
            b"ACL", b"SETUSER", b"alice", b"on", b">alice-pw", b"~*", b"&*",
            b"+@all"), b"+OK")
        url = "--url=redis://alice:@127.0.0.1:%d" % self.secure.port
        flag = self.password_file(b"alice-pw\n")
        self.run_env(["redis", "publish", self.local, "--name=f", url, flag])
        self.run_env(["redis", "info", "--name=f", url, flag])


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
        self.check_run(["redis", "publish", local] + name)
        result = self.check_run(["redis", "info"] + name, code=EXIT_REDIS)
        self.assertIn(b"seed", result.stderr)
        self.check_run(["redis", "info", "--seed=7"] + name)

    def test_compact_filter_is_refused_with_the_fix(self):
        keys = numbered(b"k", 10)
        compact = self.build(keys, "compact.bbf")
        result = self.check_run(["redis", "publish", compact, "--name=c",
                                 self.url], code=EXIT_BAD_INPUT)
        self.assertIn(b"--nocompact_small_filters", result.stderr)
        blocks = self.build(keys, "blocks.bbf", ["--nocompact_small_filters"])
        self.check_run(["redis", "publish", blocks, "--name=c", self.url])
        self.assertEqual(
            self.redis_query(["redis", "query", "--name=c", self.url], keys),
            [1] * len(keys))

    def test_usage_errors(self):
        local = self.build(numbered(b"k", 5000), "f.bbf")
        for args in (["redis"], ["redis", "frob", "--name=a"],
                     ["redis", "publish", "--name=a"],
                     ["redis", "publish", local, local, "--name=a"],
                     ["redis", "download", "--name=a"],
                     ["redis", "download", "--name=a", "-o", "-"],
                     ["redis", "download", "--name=a", "--json", "-o", "x"],
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
        result = self.check_run(["redis", "publish", local, "--name=a",
                                 "--shard_bytes=10", nowhere],
                                code=EXIT_USAGE)
        self.assertIn(b"--shard_bytes must be in", result.stderr)
        # A URL that does not parse is quoted without its password.
        result = self.check_run(["redis", "info", "--name=a",
                                 "--url=redis://alice:hunter2@h:0"],
                                code=EXIT_USAGE)
        self.assertNotIn(b"hunter2", result.stderr)
        self.assertIn(b"alice:***@h", result.stderr)

    def test_publish_of_a_filter_without_a_key_count(self):
        local = self.build(numbered(b"k", 10), "c.bbf",
                           ["--encoding=compact", "--nocompact_small_filters"])
        out = self.check_run(["redis", "publish", local, "--name=c",
                              self.url]).stdout
        self.assertIn(b"key count not stored", out)

    def test_bad_names_are_usage_errors(self):
        # Before connecting (nothing listens at the URL): exit 1.
        nowhere = "--url=redis://127.0.0.1:%d" % free_port()
        local = self.build(numbered(b"k", 5000), "f.bbf")
        for name in ("a}b{c", "{x}", "x" * 1001):
            for sub in (["publish", local],
                        ["download", "-o", self.path("p.bbf")],
                        ["query"], ["info"], ["delete"]):
                with self.subTest(name=name[:10], sub=sub[0]):
                    result = self.check_run(["redis"] + sub +
                                            ["--name=" + name, nowhere],
                                            stdin=b"", code=EXIT_USAGE)
                    self.assertIn(b"--name", result.stderr)
                    self.assertNotIn(b"connect", result.stderr)

    def test_help(self):
        text = self.check_run(["help", "redis"]).stdout.decode()
        for word in ("redis publish", "redis download", "redis query",
                     "redis info", "redis delete", "--url", "--name", "--shard_bytes",
                     "--expire", "--replace", "Exit codes", "  4  ",
                     "--password_file", "BLOCKBLOOM_REDIS_PASSWORD",
                     "orphaned", "noeviction"):
            self.assertIn(word, text)


def main():
    global REDIS_SERVER
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--blockbloom", required=True)
    parser.add_argument("--redis_server", default="redis-server")
    args, rest = parser.parse_known_args()
    cli_support.BLOCKBLOOM = os.path.abspath(args.blockbloom)
    REDIS_SERVER = shutil.which(args.redis_server)
    if REDIS_SERVER is None:
        sys.exit("redis-server not found: %s" % args.redis_server)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
