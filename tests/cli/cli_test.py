#!/usr/bin/env python3
"""End-to-end tests of the blockbloom command-line tool: they run the built
binary the way a user does and check its output, files and exit codes.

    cli_test.py --blockbloom=PATH --testdata=DIR [unittest arguments]

e.g. `cli_test.py --blockbloom=build/release/tools/blockbloom
--testdata=tests/testdata RoundTripTest.test_build_info_query`. ctest runs
each test on its own (tests/cli/CMakeLists.txt). Deterministic: fixed keys,
no timing assertions.
"""

import argparse
import json
import math
import os
import pty
import re
import resource
import select
import signal
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import unittest

BLOCKBLOOM = None  # the binary under test
TESTDATA = None  # tests/testdata: the golden filter files

EXIT_OK, EXIT_USAGE, EXIT_BAD_INPUT, EXIT_WRITE_ERROR = 0, 1, 2, 3
EXIT_REDIS = 4  # `blockbloom redis`: the server failed (redis_cli_test.py)


def run(args, stdin=None, **kwargs):
    """Runs blockbloom with `args`; returns the CompletedProcess (bytes)."""
    return subprocess.run([BLOCKBLOOM] + [str(a) for a in args], input=stdin,
                          capture_output=True, timeout=120, **kwargs)


def lines(keys):
    return b"".join(k + b"\n" for k in keys)


def length_prefixed(keys):
    return b"".join(struct.pack("<I", len(k)) + k for k in keys)


def numbered(prefix, n):
    return [b"%s%d" % (prefix, i) for i in range(n)]


class CliTestCase(unittest.TestCase):

    def setUp(self):
        self._dir = tempfile.TemporaryDirectory(prefix="blockbloom_cli_")
        self.dir = self._dir.name

    def tearDown(self):
        self._dir.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self, name, data):
        with open(self.path(name), "wb") as f:
            f.write(data)
        return self.path(name)

    def read(self, name):
        with open(self.path(name), "rb") as f:
            return f.read()

    def check_run(self, args, stdin=None, code=EXIT_OK):
        result = run(args, stdin)
        self.assertEqual(
            result.returncode, code,
            "blockbloom %s: exit %d, stderr:\n%s" %
            (" ".join(map(str, args)), result.returncode,
             result.stderr.decode(errors="replace")))
        return result

    def build(self, keys, name="f.bbf", flags=(), input_format="lines"):
        data = (lines(keys) if input_format == "lines" else
                length_prefixed(keys))
        keys_file = self.write(name + ".keys", data)
        self.check_run(["build", "--input_format=" + input_format, *flags,
                        keys_file, "-o", self.path(name)])
        return self.path(name)

    def info(self, filter_path):
        return json.loads(self.check_run(["info", "--json",
                                          filter_path]).stdout)

    def query(self, filter_path, keys, input_format="lines"):
        """The answers for `keys`, as a list of 0/1."""
        data = (lines(keys) if input_format == "lines" else
                length_prefixed(keys))
        out = self.check_run(
            ["query", "--input_format=" + input_format, filter_path, "-"],
            stdin=data).stdout
        answers = out.split(b"\n")
        self.assertEqual(answers.pop(), b"")  # output ends in a newline
        self.assertTrue(all(a in (b"0", b"1") for a in answers))
        return [int(a) for a in answers]

    def count(self, filter_path, keys):
        out = self.check_run(["query", "--count", filter_path, "-"],
                             stdin=lines(keys)).stdout
        return json.loads(out)


class RoundTripTest(CliTestCase):

    def test_build_info_query(self):
        n = 20000
        keys = numbered(b"key-", n)
        keys_file = self.write("keys.txt", lines(keys))
        out = self.check_run(["build", "--bits_per_key=10", keys_file, "-o",
                              self.path("f.bbf")]).stdout.decode()
        self.assertIn("keys read:      20000", out)
        size = os.path.getsize(self.path("f.bbf"))
        self.assertIn("bytes written:  %d " % size, out)
        self.assertIn("bits per key:   10.0", out)
        self.assertIn("estimated FPR:  0.9", out)

        info = self.info(self.path("f.bbf"))
        self.assertEqual(info["format_version"], "1.0")
        self.assertEqual(info["encoding"], "full")
        self.assertEqual(info["num_keys"], n)
        self.assertEqual(info["num_probes"], 6)
        self.assertEqual(info["lane_bits"], 32)
        self.assertEqual(info["size_on_disk_bytes"], size)
        self.assertEqual(info["bits_bytes"], info["num_blocks"] * 64)
        self.assertEqual(info["fp_rate_basis"], "num_keys")
        # The fill ratio is what 20000 keys give, and says so.
        self.assertAlmostEqual(info["fill_ratio"], info["expected_fill_ratio"],
                               delta=0.005)
        self.assertLess(abs(info["estimated_keys"] - n),
                        4 * info["estimated_keys_stderr"])
        self.assertLess(info["estimated_keys_stderr"], 0.01 * n)

        # Every key added answers 1.
        self.assertEqual(self.query(self.path("f.bbf"), keys), [1] * n)
        self.assertEqual(self.count(self.path("f.bbf"), keys),
                         {"queried": n, "may_contain": n})

        # Absent keys answer 1 at the estimated rate: within 5 standard
        # deviations of a binomial (deterministic: fixed keys, fixed hash).
        probes = 200000
        absent = numbered(b"absent-", probes)
        counted = self.count(self.path("f.bbf"), absent)
        self.assertEqual(counted["queried"], probes)
        p = info["estimated_fp_rate"]
        expected = probes * p
        sigma = math.sqrt(probes * p * (1 - p))
        self.assertLess(abs(counted["may_contain"] - expected), 5 * sigma,
                        "%d of %d absent keys, %.1f expected" %
                        (counted["may_contain"], probes, expected))
        # The per-key answers agree with the count.
        self.assertEqual(sum(self.query(self.path("f.bbf"), absent)),
                         counted["may_contain"])

    def test_text_info_has_every_field(self):
        f = self.build(numbered(b"k", 3000))
        out = self.check_run(["info", f]).stdout.decode()
        for label in ("format version:", "encoding:", "layout:",
                      "probes (k):", "seed:", "blocks:", "lane bits:",
                      "keys:", "compression:", "size on disk:",
                      "fill ratio:", "estimated FPR:",
                      "estimated distinct keys:"):
            self.assertIn("\n" + label, "\n" + out)

    def test_flags_reach_the_filter(self):
        keys = numbered(b"user:", 5000)
        # --seed is stored; keys still match.
        f = self.build(keys, "seeded.bbf", ["--seed=18446744073709551615"])
        self.assertEqual(self.info(f)["seed"], 2**64 - 1)
        self.assertEqual(self.query(f, keys), [1] * len(keys))
        # --fp_rate sizes the filter for that rate.
        f = self.build(keys, "rate.bbf", ["--fp_rate=0.001"])
        info = self.info(f)
        self.assertLessEqual(info["estimated_fp_rate"], 0.001)
        self.assertGreater(info["estimated_fp_rate"], 0.0007)
        self.assertEqual(self.query(f, keys), [1] * len(keys))
        # --compression=zstd on a sparse filter compresses it.
        f = self.build(keys, "zstd.bbf",
                       ["--bits_per_key=100", "--compression=zstd"])
        info = self.info(f)
        self.assertEqual(info["compression"], "zstd")
        self.assertLess(info["payload_bytes"], info["bits_bytes"])
        self.assertEqual(self.query(f, keys), [1] * len(keys))
        # --encoding=compact stores no key count: the FPR then comes from
        # the estimated keys.
        f = self.build(keys[:60], "compact.bbf", ["--encoding=compact"])
        info = self.info(f)
        self.assertEqual(info["encoding"], "compact")
        self.assertIsNone(info["num_keys"])
        self.assertFalse(info["num_keys_known"])
        self.assertEqual(info["fp_rate_basis"], "estimated_keys")
        self.assertLess(abs(info["estimated_keys"] - 60),
                        4 * info["estimated_keys_stderr"])
        self.assertEqual(self.query(f, keys[:60]), [1] * 60)
        self.assertNotEqual(info["lane_bits"], 32)  # 600 bits / 16 lanes
        # --nocompact_small_filters: 64-byte blocks even for a tiny filter
        # (what a shared filter in Redis needs).
        f = self.build(keys[:60], "blocks.bbf", ["--nocompact_small_filters"])
        self.assertEqual(self.info(f)["lane_bits"], 32)
        self.assertEqual(self.query(f, keys[:60]), [1] * 60)

    def test_length_prefixed_keys(self):
        # Any bytes: newlines, NULs, empty keys.
        keys = [b"", b"a\nb", b"\0", b"\r\n", b"\xff" * 3] + numbered(b"k", 500)
        f = self.build(keys, flags=["--encoding=full"],
                       input_format="lenprefixed")
        self.assertEqual(self.info(f)["num_keys"], len(keys))
        self.assertEqual(self.query(f, keys, input_format="lenprefixed"),
                         [1] * len(keys))

    def test_keys_from_standard_input(self):
        keys = numbered(b"stdin-", 1000)
        self.check_run(["build", "-", "-o", self.path("f.bbf")],
                       stdin=lines(keys))
        self.assertEqual(self.query(self.path("f.bbf"), keys), [1] * 1000)
        # The filter from standard input, the keys from a file.
        keys_file = self.write("q.txt", lines(keys[:10]))
        out = self.check_run(["query", "--count", "-", keys_file],
                             stdin=self.read("f.bbf")).stdout
        self.assertEqual(json.loads(out), {"queried": 10, "may_contain": 10})

    def test_rebuild_replaces_the_file(self):
        f = self.build(numbered(b"a", 100))
        first = self.read("f.bbf")
        self.build(numbered(b"b", 5000))
        self.assertNotEqual(self.read("f.bbf"), first)
        self.assertEqual(self.info(f)["num_keys"], 5000)
        # A normal file's mode (mkstemp's 0600 is not kept).
        umask = os.umask(0)
        os.umask(umask)
        self.assertEqual(os.stat(f).st_mode & 0o777, 0o666 & ~umask)
        self.assertEqual(sorted(os.listdir(self.dir)),
                         ["f.bbf", "f.bbf.keys"])

    def test_json_quotes_file_names(self):
        name = 'we"ird\\name\t.bbf'
        f = self.build(numbered(b"k", 10), name)
        self.assertEqual(self.info(f)["file"], f)


def golden_files():
    """The golden filters, from the table in tests/testdata/README.md:
    (file, number of keys, build flags, absent keys answering 1)."""
    rows = []
    with open(os.path.join(TESTDATA, "README.md")) as f:
        for line in f:
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) != 10 or not cells[0].endswith(".bbf"):
                continue
            name, keys, bits_per_key, seed, encoding, codec = cells[:6]
            flags = ["--bits_per_key=" + bits_per_key,
                     "--seed=%d" % int(seed, 0),
                     "--encoding=" + encoding.split()[0]]
            if codec != "none":
                algorithm, level = codec.split()
                flags += ["--compression=" + algorithm,
                          "--zstd_level=" + level]
            rows.append((name, int(keys), flags, int(cells[-1])))
    return rows


class GoldenTest(CliTestCase):
    """The tool writes exactly what the library's golden vectors hold, and
    answers as they pin (tests/testdata/README.md)."""

    def setUp(self):
        super().setUp()
        self.golden = golden_files()
        self.assertGreaterEqual(len(self.golden), 7)

    def test_build_matches_golden_files(self):
        for name, n, flags, _ in self.golden:
            with self.subTest(name):
                self.build(numbered(b"golden-key-", n), name, flags)
                with open(os.path.join(TESTDATA, name), "rb") as golden:
                    self.assertEqual(self.read(name), golden.read())

    def test_info_and_query_on_golden_files(self):
        absent = numbered(b"absent-", 10000)
        for name, n, _, absent_positives in self.golden:
            with self.subTest(name):
                f = os.path.join(TESTDATA, name)
                info = self.info(f)
                self.assertEqual(info["size_on_disk_bytes"],
                                 os.path.getsize(f))
                self.assertEqual(info["encoding"], name.split("_")[0])
                self.assertEqual(info["num_keys"],
                                 None if name.startswith("compact") else n)
                if n:
                    self.assertLess(abs(info["estimated_keys"] - n),
                                    4 * info["estimated_keys_stderr"] + 1)
                else:
                    self.assertEqual(info["estimated_keys"], 0)
                self.assertEqual(self.count(f, numbered(b"golden-key-", n)),
                                 {"queried": n, "may_contain": n})
                self.assertEqual(self.count(f, absent)["may_contain"],
                                 absent_positives)
        # docs/FORMAT.md's example: 1 block of 7-bit lanes, k = 7.
        info = self.info(os.path.join(TESTDATA, "full_10keys_narrow.bbf"))
        self.assertEqual((info["num_blocks"], info["lane_bits"],
                          info["num_probes"], info["bits_bytes"]),
                         (1, 7, 7, 14))


class BadFilterTest(CliTestCase):
    """Truncated, bit-flipped and unreadable filters: exit 2, and a message
    naming the file and the reader's reason."""

    def check_rejected(self, path, reason):
        for args in (["info", path], ["info", "--json", path],
                     ["query", path, "-"], ["query", "--count", path, "-"]):
            result = self.check_run(args, stdin=b"k1\n", code=EXIT_BAD_INPUT)
            self.assertEqual(result.stdout, b"")
            err = result.stderr.decode()
            self.assertIn(path, err)
            self.assertIn(reason, err)
            self.assertEqual(err.count("\n"), 1, err)  # one line

    def test_truncated(self):
        full = self.read_filter(numbered(b"k", 2000), "full.bbf")
        compact = self.read_filter(numbered(b"k", 50), "compact.bbf")
        self.assertEqual(full[-1], 0xB0)
        self.assertEqual(compact[-1] & 0xE0, 0xC0)  # compact, version 1
        for data in (full, compact):
            for cut in (0, 1, 4, len(data) // 2, len(data) - 1):
                with self.subTest(size=len(data), cut=cut):
                    path = self.write("cut.bbf", data[:cut])
                    # DATA_LOSS, or UNIMPLEMENTED when the last byte left
                    # reads as the tag of a newer major version.
                    self.check_rejected(path, "not a valid blockbloom filter: ")

    def test_bit_flipped(self):
        full = self.read_filter(numbered(b"k", 2000), "full.bbf")
        compact = self.read_filter(numbered(b"k", 50), "compact.bbf")
        cases = [
            (full, 100, "checksum mismatch"),          # the bits
            (full, len(full) - 56 + 8, "checksum mismatch"),  # num_keys
            (full, len(full) - 4, "DATA_LOSS"),        # the magic
            (compact, 10, "DATA_LOSS"),                # the bits (CRC)
            (compact, len(compact) - 2, "DATA_LOSS"),  # the CRC itself
        ]
        for data, byte, reason in cases:
            for bit in (0, 7):
                with self.subTest(size=len(data), byte=byte, bit=bit):
                    flipped = bytearray(data)
                    flipped[byte] ^= 1 << bit
                    path = self.write("flip.bbf", bytes(flipped))
                    self.check_rejected(path, reason)

    def test_not_a_filter(self):
        path = self.write("text.txt", b"hello, world\n")
        self.check_rejected(path, "not a blockbloom filter")

    def test_unreadable(self):
        self.check_rejected(self.path("missing.bbf"),
                            "No such file or directory")
        os.mkdir(self.path("dir.bbf"))
        self.check_rejected(self.path("dir.bbf"), "Is a directory")
        # Keys that cannot be read: exit 2 as well.
        f = self.build(numbered(b"k", 10))
        result = self.check_run(["query", f, self.path("no-keys.txt")],
                                code=EXIT_BAD_INPUT)
        self.assertIn("no-keys.txt", result.stderr.decode())

    def read_filter(self, keys, name):
        self.build(keys, name)
        return self.read(name)


_SANITIZED = None


def sanitized():
    """True if the binary under test is built with AddressSanitizer, which
    reserves terabytes of address space: memory limits cannot apply to it
    (and it is bounded by construction, which the plain build checks)."""
    global _SANITIZED
    if _SANITIZED is None:
        with open(BLOCKBLOOM, "rb") as f:
            _SANITIZED = b"__asan_init" in f.read()
    return _SANITIZED


def limited(data_bytes=None, address_bytes=None):
    """A preexec_fn capping the child's data segment (private writable
    memory: what a read into memory takes, not a read-only file mapping)
    and/or its address space (ulimit -v), so that a tool that would read a
    huge input into memory fails fast instead of exhausting the machine.
    None (no limit) for a sanitized binary."""
    if sanitized():
        return None

    def apply():
        if data_bytes is not None:
            resource.setrlimit(resource.RLIMIT_DATA, (data_bytes, data_bytes))
        if address_bytes is not None:
            resource.setrlimit(resource.RLIMIT_AS,
                               (address_bytes, address_bytes))
    return apply


class BoundedMemoryTest(CliTestCase):
    """info and query (and redis push) bound the memory any input can make
    them allocate: huge sparse files, /dev/zero, endless pipes, files that
    grow, zstd bombs. Exit 2 with a message, never an abort (issue 18)."""

    def check_bounded(self, args, reason, stdin=None, **limits):
        data = stdin if isinstance(stdin, bytes) else None
        result = subprocess.run([BLOCKBLOOM] + args,
                                stdin=None if data is not None else stdin,
                                input=data, capture_output=True, timeout=120,
                                preexec_fn=limited(**limits))
        err = result.stderr.decode(errors="replace")
        self.assertEqual(result.returncode, EXIT_BAD_INPUT, err)
        self.assertIn(reason, err)
        self.assertTrue(err.startswith("blockbloom "), err)  # no abort
        self.assertNotIn("terminate called", err)
        return err

    def test_huge_sparse_files(self):
        for gib in (20, 300):
            path = self.path("sparse-%d.bbf" % gib)
            with open(path, "wb") as f:
                f.truncate(gib << 30)
            for args in (["info", path], ["query", path, "-"],
                         ["query", "--count", path, "-"]):
                with self.subTest(gib=gib, args=args[:-1]):
                    # Mapped, not read: only its last bytes are looked at.
                    self.check_bounded(args, "not a blockbloom filter",
                                       stdin=subprocess.DEVNULL,
                                       data_bytes=1 << 30)
                    # Under ulimit -v it cannot even be mapped: said so.
                    if sanitized():
                        continue  # ASan needs more address space than that
                    err = self.check_bounded(args, path,
                                             stdin=subprocess.DEVNULL,
                                             address_bytes=4 << 30)
                    self.assertIn("ulimit -v", err)

    def test_endless_devices_and_pipes(self):
        # /dev/zero never ends: at most --max_memory (default 1 GiB) is read.
        err = self.check_bounded(["info", "/dev/zero"], "/dev/zero",
                                 data_bytes=2 << 30)
        self.assertIn("--max_memory", err)
        self.check_bounded(["query", "--max_memory=1M", "/dev/zero", "-"],
                           "more than 1048576 bytes",
                           stdin=subprocess.DEVNULL, data_bytes=2 << 30)
        # Standard input that never ends.
        with open("/dev/zero", "rb") as zero:
            self.check_bounded(["info", "--max_memory=16M", "-"],
                               "standard input", stdin=zero,
                               data_bytes=2 << 30)
        # A FIFO fed without end.
        fifo = self.path("fifo")
        os.mkfifo(fifo)

        def feed():
            try:
                with open(fifo, "wb") as f:
                    while True:
                        f.write(b"\0" * (1 << 20))
            except OSError:  # the reader went away: EPIPE
                pass

        threading.Thread(target=feed, daemon=True).start()
        self.check_bounded(["info", "--max_memory=16M", fifo], fifo,
                           data_bytes=2 << 30)

    def test_inputs_that_are_not_keys(self):
        # build and query read keys of any length, but not without end:
        # /dev/zero is one endless line. A key over --max_memory (default
        # 1 GiB) stops the input with exit 2; nothing is written.
        out = self.path("f.bbf")
        # With the default limit, under a 512 MiB data limit: memory runs out
        # first, which is an error too.
        self.check_bounded(["build", "/dev/zero", "-o", out],
                           "/dev/zero: ", data_bytes=512 << 20)
        err = self.check_bounded(["build", "--max_memory=1M", "/dev/zero",
                                  "-o", out], "longer than 1048576 bytes",
                                 data_bytes=2 << 30)
        self.assertIn("--max_memory", err)
        self.assertFalse(os.path.exists(out))
        f = self.build(numbered(b"k", 10), "ok.bbf")
        for args in (["query", "--max_memory=1M", f, "/dev/zero"],
                     ["query", "--max_memory=1M", "--input_format=lenprefixed",
                      f, "-"]):
            with self.subTest(args=args):
                self.check_bounded(args, "longer than 1048576 bytes",
                                   stdin=b"\xff\xff\xff\x7f" + b"x" * (2 << 20)
                                   if args[-1] == "-" else None,
                                   data_bytes=2 << 30)
        # bench's keys are generated: too many for memory is a usage error.
        if not sanitized():
            result = subprocess.run(
                [BLOCKBLOOM, "bench", "--keys=4294967296"],
                capture_output=True, timeout=120,
                preexec_fn=limited(data_bytes=2 << 30))
            self.assertEqual(result.returncode, EXIT_USAGE, result.stderr)
            self.assertIn(b"out of memory", result.stderr)

    def test_filters_from_pipes_and_redirects_still_work(self):
        f = self.build(numbered(b"k", 3000))
        with open(f, "rb") as data:
            filter_bytes = data.read()
        fifo = self.path("fifo")
        os.mkfifo(fifo)

        def feed():
            with open(fifo, "wb") as out:
                out.write(filter_bytes)

        threading.Thread(target=feed, daemon=True).start()
        out = self.check_run(["info", "--json", fifo]).stdout
        self.assertEqual(json.loads(out)["num_keys"], 3000)
        # Standard input redirected from the file (mapped), also when part
        # of it was already read: the filter is what follows.
        with open(self.path("prefixed"), "wb") as out:
            out.write(b"header\n" + filter_bytes)
        with open(self.path("prefixed"), "rb", buffering=0) as stdin:
            self.assertEqual(stdin.read(7), b"header\n")
            result = subprocess.run([BLOCKBLOOM, "info", "--json", "-"],
                                    stdin=stdin, capture_output=True,
                                    timeout=120)
        self.assertEqual(result.returncode, EXIT_OK, result.stderr)
        self.assertEqual(json.loads(result.stdout)["size_on_disk_bytes"],
                         len(filter_bytes))

    def test_file_that_grows_while_read(self):
        # Read as it was when opened: its appended tail is not a footer.
        f = self.build(numbered(b"k", 3000))
        stop = threading.Event()

        def grow():
            with open(f, "ab") as out:
                for _ in range(64):
                    if stop.is_set():
                        break
                    out.write(b"\0" * (1 << 20))
                    out.flush()

        writer = threading.Thread(target=grow, daemon=True)
        writer.start()
        result = subprocess.run([BLOCKBLOOM, "info", f], capture_output=True,
                                timeout=120,
                                preexec_fn=limited(data_bytes=2 << 30))
        stop.set()
        writer.join(60)
        self.assertIn(result.returncode, (EXIT_OK, EXIT_BAD_INPUT),
                      result.stderr)

    def test_zstd_bombs(self):
        # A real filter (1 key in 256 MiB of bits, zstd: about 8 KB) that
        # expands 32000x: refused before allocating, with how to read it.
        one = self.write("one.txt", b"the only key\n")
        bomb = self.path("bomb.bbf")
        self.check_run(["build", "--quiet", "--compression=zstd",
                        "--bits_per_key=%d" % (256 << 23), one, "-o", bomb])
        self.assertLess(os.path.getsize(bomb), 64 << 10)
        for args in (["info", bomb], ["query", bomb, one]):
            with self.subTest(args=args):
                err = self.check_bounded(args, "decompression",
                                         data_bytes=2 << 30)
                self.assertIn("--max_memory=256M", err)
                self.assertIn(bomb, err)
        # Given --max_memory, the user vouches for the file: it opens.
        out = self.check_run(["query", "--max_memory=256M", bomb, one])
        self.assertEqual(out.stdout, b"1\n")
        self.assertEqual(self.check_run(
            ["info", "--json", "--max_memory=300M", bomb]).stdout.count(
                b'"num_keys": 1,'), 1)
        # A filter over --max_memory, whatever its ratio.
        sparse = self.build(numbered(b"k", 20000), "sparse.bbf",
                            ["--bits_per_key=1000", "--compression=zstd"])
        info = self.info(sparse)  # the default limit (1 GiB) lets it open
        self.assertGreater(info["bits_bytes"], 2 << 20)
        err = self.check_bounded(["info", "--max_memory=1M", sparse],
                                 "over --max_memory=1M")
        self.assertIn("--max_memory=3M", err)  # rounded up to what it needs


class FailedBuildTest(CliTestCase):
    """A build that fails leaves no file behind (and an existing OUTPUT as
    it was)."""

    def setUp(self):
        super().setUp()
        self.keys = self.write("keys.txt", lines(numbered(b"k", 100000)))

    def assert_only(self, *names):
        self.assertEqual(sorted(os.listdir(self.dir)), sorted(names))

    def test_missing_directory(self):
        out = self.path("no/such/dir/f.bbf")
        result = self.check_run(["build", self.keys, "-o", out],
                                code=EXIT_WRITE_ERROR)
        self.assertIn(out, result.stderr.decode())
        self.assert_only("keys.txt")

    def test_output_is_a_directory(self):
        # Refused before the keys are read, without a temporary file or its
        # name in the message.
        os.mkdir(self.path("out"))
        result = self.check_run(["build", self.keys, "-o", self.path("out")],
                                code=EXIT_WRITE_ERROR)
        self.assertIn("is a directory", result.stderr.decode())
        self.assertNotIn(".tmp", result.stderr.decode())
        self.assert_only("keys.txt", "out")
        self.assertEqual(os.listdir(self.path("out")), [])

    def test_write_error_midway(self):
        # A file size limit makes write() fail with EFBIG part way through
        # the ~125 KB filter (root ignores directory permissions, not this).
        self.write("f.bbf", b"old contents")

        def limit_file_size():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

        result = subprocess.run(
            [BLOCKBLOOM, "build", self.keys, "-o", self.path("f.bbf")],
            capture_output=True, preexec_fn=limit_file_size, timeout=120)
        self.assertEqual(result.returncode, EXIT_WRITE_ERROR, result.stderr)
        self.assertIn("File too large", result.stderr.decode())
        self.assert_only("keys.txt", "f.bbf")
        self.assertEqual(self.read("f.bbf"), b"old contents")

    def test_killed_midway(self):
        # The same limit, with SIGXFSZ left to kill the process as it does by
        # default: it dies of the signal, and its temporary file goes first.
        def limit_file_size():
            signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
            resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

        result = subprocess.run(
            [BLOCKBLOOM, "build", self.keys, "-o", self.path("f.bbf")],
            capture_output=True, preexec_fn=limit_file_size, timeout=120)
        self.assertEqual(result.returncode, -signal.SIGXFSZ, result.stderr)
        self.assert_only("keys.txt")

    @unittest.skipIf(os.geteuid() == 0, "root can write anywhere")
    def test_unwritable_directory(self):
        os.mkdir(self.path("ro"), 0o555)
        self.check_run(["build", self.keys, "-o", self.path("ro/f.bbf")],
                       code=EXIT_WRITE_ERROR)
        self.assertEqual(os.listdir(self.path("ro")), [])

    def test_bad_input(self):
        # A truncated length-prefixed record: exit 2, nothing written.
        bad = self.write("bad.bin", length_prefixed([b"abc"]) + b"\x09\0\0\0xy")
        result = self.check_run(["build", "--input_format=lenprefixed", bad,
                                 "-o", self.path("f.bbf")],
                                code=EXIT_BAD_INPUT)
        self.assertIn("truncated record 2", result.stderr.decode())
        result = self.check_run(["build", self.path("missing.txt"), "-o",
                                 self.path("f.bbf")], code=EXIT_BAD_INPUT)
        self.assertIn("No such file or directory", result.stderr.decode())
        self.assert_only("keys.txt", "bad.bin")


class OutputTest(CliTestCase):
    """-o never destroys a file: not the input, not a device, not a
    directory; an existing file keeps its mode and owner (issue 18)."""

    def setUp(self):
        super().setUp()
        self.keys_data = lines(numbered(b"k", 3000))
        self.keys = self.write("keys.txt", self.keys_data)

    def assert_unchanged(self, path, data):
        with open(path, "rb") as f:
            self.assertEqual(f.read(), data)

    def test_output_is_the_input(self):
        # The same file by any name: the same path, ./path, dir/../path, a
        # symbolic link either way, a hard link, standard input redirected
        # from it. Refused before anything is read or written.
        os.mkdir(self.path("sub"))
        os.symlink(self.keys, self.path("link-to-keys"))
        os.link(self.keys, self.path("hard-link"))
        out_link = self.path("link-to-keys-out")
        os.symlink("keys.txt", out_link)
        cases = [
            ([self.keys, "-o", self.keys], None),
            (["keys.txt", "-o", "./keys.txt"], self.dir),
            (["./keys.txt", "-o", "sub/../keys.txt"], self.dir),
            ([self.keys, "-o", self.path("link-to-keys")], None),
            ([self.path("link-to-keys"), "-o", self.keys], None),
            ([self.keys, "-o", out_link], None),
            ([self.path("hard-link"), "-o", self.keys], None),
            (["-", "-o", self.keys], "stdin"),
        ]
        for args, how in cases:
            with self.subTest(args=args):
                if how == "stdin":
                    with open(self.keys, "rb") as stdin:
                        result = subprocess.run(
                            [BLOCKBLOOM, "build"] + args, stdin=stdin,
                            capture_output=True, timeout=120)
                else:
                    result = subprocess.run([BLOCKBLOOM, "build"] + args,
                                            cwd=how, capture_output=True,
                                            timeout=120)
                self.assertEqual(result.returncode, EXIT_USAGE, result.stderr)
                self.assertIn(b"same file", result.stderr)
                self.assertEqual(result.stdout, b"")
                self.assert_unchanged(self.keys, self.keys_data)
                self.assertTrue(os.path.islink(self.path("link-to-keys")))
        self.assertEqual(sorted(os.listdir(self.dir)),
                         ["hard-link", "keys.txt", "link-to-keys",
                          "link-to-keys-out", "sub"])

    def test_output_is_a_device_or_pipe(self):
        # Character devices and pipes are written into, never replaced by a
        # regular file: a /dev/null of our own (as root), a FIFO.
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        received = []

        def read_fifo():
            with open(fifo, "rb") as f:
                received.append(f.read())

        import threading
        # A daemon: if the FIFO were replaced, the reader would wait forever.
        reader = threading.Thread(target=read_fifo, daemon=True)
        reader.start()
        result = self.check_run(["build", self.keys, "-o", fifo])
        reader.join(60)
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))
        self.assertEqual(len(received), 1)
        self.assertIn(b"bytes written:  %d " % len(received[0]),
                      result.stdout)
        # What went through the pipe is the filter.
        copy = self.write("from-fifo.bbf", received[0])
        self.assertEqual(self.info(copy)["num_keys"], 3000)

        null = self.make_device("null", stat.S_IFCHR, 1, 3)
        self.check_run(["build", self.keys, "-o", null])
        self.assertTrue(stat.S_ISCHR(os.lstat(null).st_mode))
        # A device that fails the write: exit 3, still a device.
        full = self.make_device("full", stat.S_IFCHR, 1, 7)
        result = self.check_run(["build", self.keys, "-o", full],
                                code=EXIT_WRITE_ERROR)
        self.assertIn(b"No space left on device", result.stderr)
        self.assertTrue(stat.S_ISCHR(os.lstat(full).st_mode))

    def test_output_that_cannot_be_written_into(self):
        # Directories, block devices, sockets and links to nothing are
        # refused, with the reason, before the input is read; nothing
        # changes and no temporary name shows.
        os.mkdir(self.path("dir"))
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(self.path("sock"))
        self.addCleanup(sock.close)
        os.symlink("missing.bbf", self.path("dangling"))
        cases = [("dir", "is a directory"), ("sock", "is a socket"),
                 ("dangling", "missing.bbf")]
        try:
            self.make_device("disk", stat.S_IFBLK, 7, 200)
            cases.append(("disk", "is a block device"))
        except unittest.SkipTest:
            pass
        for name, reason in cases:
            with self.subTest(name):
                before = os.lstat(self.path(name))
                # The input does not exist: refused before reading it.
                result = self.check_run(
                    ["build", self.path("no-such-input"), "-o",
                     self.path(name)], code=EXIT_WRITE_ERROR)
                err = result.stderr.decode()
                self.assertIn(reason, err)
                self.assertNotIn(".tmp", err)
                self.assertNotIn("no-such-input", err)
                after = os.lstat(self.path(name))
                self.assertEqual((before.st_mode, before.st_ino),
                                 (after.st_mode, after.st_ino))
        self.assertEqual(os.listdir(self.path("dir")), [])

    def test_output_through_a_symbolic_link(self):
        # A link to a filter file: the file it points to is replaced, the
        # link stays a link.
        self.check_run(["build", self.keys, "-o", self.path("real.bbf")])
        os.symlink("real.bbf", self.path("link.bbf"))
        other = self.write("other.txt", lines(numbered(b"o", 10)))
        self.check_run(["build", "--encoding=full", other, "-o",
                        self.path("link.bbf")])
        self.assertTrue(os.path.islink(self.path("link.bbf")))
        self.assertEqual(self.info(self.path("real.bbf"))["num_keys"], 10)

    def test_rebuild_keeps_mode_and_owner(self):
        # The filter holds the seed: a rebuild keeps the old file's mode
        # (and, as root, its owner); new files get 0666 minus the umask.
        out = self.path("f.bbf")
        self.check_run(["build", self.keys, "-o", out])
        os.chmod(out, 0o600)
        self.check_run(["build", "--seed=7", self.keys, "-o", out])
        self.assertEqual(stat.S_IMODE(os.stat(out).st_mode), 0o600)
        os.chmod(out, 0o640)
        self.check_run(["build", self.keys, "-o", out])
        self.assertEqual(stat.S_IMODE(os.stat(out).st_mode), 0o640)
        for umask, mode in ((0o077, 0o600), (0o022, 0o644), (0o002, 0o664)):
            with self.subTest(umask=oct(umask)):
                new = self.path("new-%o.bbf" % umask)
                result = subprocess.run(
                    [BLOCKBLOOM, "build", self.keys, "-o", new],
                    capture_output=True, timeout=120,
                    preexec_fn=lambda: os.umask(umask))
                self.assertEqual(result.returncode, EXIT_OK, result.stderr)
                self.assertEqual(stat.S_IMODE(os.stat(new).st_mode), mode)
        # The owner, where we may set it (root, outside a user namespace
        # that maps no other ids).
        try:
            os.chown(out, 12345, 23456)
        except OSError as e:
            self.skipTest("cannot give a file another owner here: %s" % e)
        self.check_run(["build", self.keys, "-o", out])
        st = os.stat(out)
        self.assertEqual((st.st_uid, st.st_gid), (12345, 23456))
        self.assertEqual(stat.S_IMODE(st.st_mode), 0o640)

    def test_long_output_names(self):
        # Names up to the file system's limit (255 bytes): the temporary
        # name beside them is shortened, not the output's.
        for length in (240, 254, 255):
            with self.subTest(length=length):
                name = "n" * (length - 4) + ".bbf"
                self.check_run(["build", self.keys, "-o", self.path(name)])
                self.assertEqual(self.info(self.path(name))["num_keys"],
                                 3000)
                os.unlink(self.path(name))
        self.assertEqual(sorted(os.listdir(self.dir)), ["keys.txt"])

    def make_device(self, name, kind, major, minor):
        """A device node in the test's directory, or SkipTest without the
        privilege to make one."""
        path = self.path(name)
        try:
            os.mknod(path, kind | 0o666, os.makedev(major, minor))
        except PermissionError as e:
            raise unittest.SkipTest("cannot make device nodes: %s" % e)
        if kind == stat.S_IFCHR:
            try:
                with open(path, "rb"):
                    pass
            except OSError as e:
                raise unittest.SkipTest("device nodes cannot be opened "
                                        "here: %s" % e)
        return path


class InputTest(CliTestCase):

    def test_empty_input(self):
        for source in ("file", "stdin"):
            with self.subTest(source):
                out = self.path("empty.bbf")
                if source == "file":
                    args = ["build", self.write("empty.txt", b""), "-o", out]
                    self.check_run(args)
                else:
                    self.check_run(["build", "-", "-o", out], stdin=b"")
                info = self.info(out)
                self.assertEqual(info["estimated_keys"], 0)
                self.assertEqual(info["set_bits"], 0)
                self.assertEqual(info["estimated_fp_rate"], 0)
                self.assertEqual(self.query(out, [b"a", b"", b"b"]), [0, 0, 0])
                self.assertEqual(self.count(out, []),
                                 {"queried": 0, "may_contain": 0})
        # With a key count: zero.
        out = self.path("empty_full.bbf")
        self.check_run(["build", "--encoding=full", "-", "-o", out], stdin=b"")
        self.assertEqual(self.info(out)["num_keys"], 0)
        # Zero-length lenprefixed input too.
        self.check_run(["build", "--input_format=lenprefixed", "-", "-o", out],
                       stdin=b"")

    def test_key_longer_than_1_mib(self):
        long_key = bytes(range(256)).replace(b"\n", b"_") * 6000  # 1.5 MB
        keys = [b"before", long_key, b"after", long_key + b"!"]
        for input_format in ("lines", "lenprefixed"):
            with self.subTest(input_format):
                f = self.build(keys, input_format + ".bbf",
                               ["--encoding=full"], input_format=input_format)
                self.assertEqual(self.info(f)["num_keys"], 4)
                self.assertEqual(
                    self.query(f, keys, input_format=input_format), [1] * 4)

    def test_line_rules(self):
        # '\r' is part of a key, an empty line is the empty key, a last line
        # without '\n' counts, no empty key after a final '\n'.
        data = b"a\r\nb\n\nc"
        f = self.path("f.bbf")
        out = self.check_run(["build", "-", "-o", f], stdin=data).stdout
        self.assertIn(b"keys read:      4 ", out)
        self.assertEqual(
            self.query(f, [b"a\r", b"b", b"", b"c"], "lenprefixed"), [1] * 4)
        out = self.check_run(["build", "-", "-o", f], stdin=b"x\ny\n").stdout
        self.assertIn(b"keys read:      2 ", out)


class ProgressBarTest(CliTestCase):

    def build_under_pty(self, extra_flags, write_keys=True):
        """Runs a build of keys.txt (5000 keys written first, unless
        `write_keys` is false) with stderr on a pseudo-terminal; returns what
        the terminal received, and the exit code."""
        keys = self.path("keys.txt")
        if write_keys:
            self.write("keys.txt", lines(numbered(b"k", 5000)))
        master, slave = pty.openpty()
        try:
            proc = subprocess.Popen(
                [BLOCKBLOOM, "build", *extra_flags, keys, "-o",
                 self.path("f.bbf")],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=slave)
            os.close(slave)
            slave = None
            seen = b""
            while True:
                ready, _, _ = select.select([master], [], [], 60)
                if not ready:
                    break
                try:
                    chunk = os.read(master, 4096)
                except OSError:  # EIO: the child closed the terminal
                    break
                if not chunk:
                    break
                seen += chunk
            proc.stdout.read()
            code = proc.wait(timeout=60)
        finally:
            os.close(master)
            if slave is not None:
                os.close(slave)
        return seen, code

    def test_no_bar_when_stderr_is_not_a_terminal(self):
        keys = self.write("keys.txt", lines(numbered(b"k", 5000)))
        result = self.check_run(["build", keys, "-o", self.path("f.bbf")])
        self.assertEqual(result.stderr, b"")
        self.assertIn(b"keys read:", result.stdout)

    def test_bar_on_a_terminal(self):
        seen, code = self.build_under_pty([])
        self.assertEqual(code, EXIT_OK)
        self.assertIn(b"reading keys", seen)
        self.assertIn(b"100%", seen)
        # Drawn in place and erased at the end: nothing left on the line.
        self.assertTrue(seen.endswith(b"\r\x1b[K"), seen[-40:])

    def test_quiet_on_a_terminal(self):
        seen, code = self.build_under_pty(["--quiet"])
        self.assertEqual(code, EXIT_OK)
        self.assertEqual(seen, b"")


class UsageTest(CliTestCase):

    def test_usage_errors_exit_1(self):
        keys = self.write("keys.txt", b"a\n")
        out = self.path("f.bbf")
        for args in ([], ["nope"], ["build"], ["build", keys],
                     ["build", keys, keys, "-o", out],
                     ["build", keys, "-o", "-"],
                     ["build", keys, "-o", out, "--json"],
                     ["build", keys, "-o", out, "--bogus"],
                     ["build", keys, "-o", out, "--bits_per_key=x"],
                     ["build", keys, "-o", out, "--bits_per_key=0"],
                     ["build", keys, "-o", out, "--fp_rate=1"],
                     ["build", keys, "-o", out, "--fp_rate=0.01",
                      "--bits_per_key=8"],
                     ["build", keys, "-o", out, "--compression=lz4"],
                     ["build", keys, "-o", out, "--encoding=compact",
                      "--compression=zstd"],
                     ["build", keys, "-o", out, "--input_format=csv"],
                     ["build", keys, "-o", out, "--zstd_level=0"],
                     ["info"], ["info", out, out], ["info", "--count", out],
                     ["query"], ["query", "-", "-"], ["query", "a", "b", "c"],
                     ["query", "--json", out],
                     ["bench", "extra"], ["bench", "--keys=0"],
                     ["bench", "--quiet"], ["help", "nope"]):
            with self.subTest(args=args):
                result = self.check_run(args, code=EXIT_USAGE)
                self.assertNotEqual(result.stderr, b"")
        self.assertFalse(os.path.exists(out))

    def test_version(self):
        # absl's --version is not in the flag registry the scanner reads; the
        # packaging check runs the installed tool with it.
        for flag in ("--version", "-version"):
            with self.subTest(flag=flag):
                result = self.check_run([flag])
                self.assertRegex(result.stdout.decode(),
                                 r"^blockbloom \S+\n$")
                self.assertEqual(result.stderr, b"")

    def test_help_documents_everything(self):
        text = self.check_run(["--help"]).stdout.decode()
        for word in ("build", "info", "query", "bench", "redis",
                     "--nocompact_small_filters", "--bits_per_key",
                     "--fp_rate", "--seed", "--compression", "--input_format",
                     "-o OUTPUT", "--quiet", "--json", "--count", "--keys",
                     "--encoding", "--zstd_level", "Exit codes", "lenprefixed",
                     "estimated_keys_stderr"):
            self.assertIn(word, text)
        for args in (["help", "build"], ["build", "--help"], ["build", "-h"],
                     ["help", "query"], ["info", "--help"]):
            with self.subTest(args=args):
                text = self.check_run(args).stdout.decode()
                self.assertIn("blockbloom " + args[0 if args[0] != "help"
                                                   else 1], text)
                self.assertIn("Exit codes", text)


class MessagesTest(CliTestCase):
    """What the tool says: every message is the tool's own, names the
    command and says what to do (issue 18)."""

    def test_lost_standard_output_is_an_error(self):
        # A summary that cannot be written (a full disk: /dev/full) is an
        # error, exit 3, for every command that prints one.
        keys = self.write("keys.txt", lines(numbered(b"k", 1000)))
        f = self.path("f.bbf")
        for args in (["build", keys, "-o", f], ["info", f],
                     ["info", "--json", f], ["query", f, keys],
                     ["query", "--count", f, keys], ["bench", "--keys=1000"],
                     ["--help"], ["help", "build"]):
            with self.subTest(args=args):
                with open("/dev/full", "wb") as full:
                    result = subprocess.run([BLOCKBLOOM] + args, stdout=full,
                                            stderr=subprocess.PIPE,
                                            timeout=120)
                self.assertEqual(result.returncode, EXIT_WRITE_ERROR,
                                 result.stderr)
                err = result.stderr.decode()
                self.assertIn("standard output", err)
                self.assertIn("No space left on device", err)
        # The filter itself was written, and the message says so.
        with open("/dev/full", "wb") as full:
            result = subprocess.run([BLOCKBLOOM, "build", "--seed=3", keys,
                                     "-o", f], stdout=full,
                                    stderr=subprocess.PIPE, timeout=120)
        self.assertIn(b"written to " + f.encode(), result.stderr)
        self.assertEqual(self.info(f)["seed"], 3)

    def test_json_is_valid_utf8_whatever_the_file_name(self):
        # Bytes that are not UTF-8 become U+FFFD (one per maximal invalid
        # sequence, as Python's errors="replace"); UTF-8 and control
        # characters are kept (escaped).
        f = self.build(numbered(b"k", 10))
        for raw in (b"bad\xff\xfe.bbf", b"caf\xc3\xa9.bbf",
                    b"cut\xe2\x82.bbf", b"over\xc0\xafl.bbf",
                    b"surrogate\xed\xa0\x80.bbf", b"big\xf4\x90\x80\x80.bbf",
                    b"tab\tnl\ndel\x7f.bbf", b"\xf0\x9f\x98\x80.bbf"):
            with self.subTest(raw=raw):
                path = os.path.join(os.fsencode(self.dir), raw)
                with open(f, "rb") as src, open(path, "wb") as dst:
                    dst.write(src.read())
                out = subprocess.run([os.fsencode(BLOCKBLOOM), b"info",
                                      b"--json", path], capture_output=True,
                                     timeout=120)
                self.assertEqual(out.returncode, EXIT_OK, out.stderr)
                info = json.loads(out.stdout.decode("utf-8"))  # strict
                self.assertEqual(info["file"],
                                 path.decode("utf-8", errors="replace"))

    def test_progress_bar_counts_what_was_read(self):
        # Each frame counts the keys and bytes consumed so far ("1 key", not
        # "1 keys, 1.0 MiB" of read-ahead); the last one reaches 100%.
        keys = numbered(b"key-", 200000)
        self.write("keys.txt", lines(keys))
        seen, code = ProgressBarTest.build_under_pty(self, [],
                                                     write_keys=False)
        self.assertEqual(code, EXIT_OK)
        frames = [f for f in seen.split(b"\r\x1b[K") if f]
        reading = [f for f in frames if f.startswith(b"reading keys")]
        self.assertTrue(reading, frames)
        total = os.path.getsize(self.path("keys.txt"))
        for frame in reading:
            m = re.search(rb" (\d+)%  (\d+) (keys?), ([\d.]+) (B|KiB|MiB)$",
                          frame)
            self.assertIsNotNone(m, frame)
            percent, n, word = int(m.group(1)), int(m.group(2)), m.group(3)
            self.assertEqual(word, b"key" if n == 1 else b"keys", frame)
            scale = {b"B": 1, b"KiB": 1024, b"MiB": 1 << 20}[m.group(5)]
            consumed = float(m.group(4)) * scale
            # The bytes of n keys of this input, not a buffer's worth.
            expected = len(lines(keys[:n]))
            self.assertLess(abs(consumed - expected), 0.06 * expected + 64,
                            frame)
            self.assertLessEqual(percent, 100 * expected // total + 1, frame)
        self.assertIn(b"100%", reading[-1])

    def test_flag_messages_are_the_tools_own(self):
        keys = self.write("keys.txt", b"a\n")
        out = self.path("f.bbf")
        cases = [
            (["build", keys, "-o", "-"], "build", "-o"),
            (["build", keys, "-o", out, "--bits-per-key=3"], "build",
             "did you mean --bits_per_key"),
            (["info", "--jsno", out], "info", "did you mean --json"),
            (["query", "--Count", out], "query", "did you mean --count"),
            (["build", keys, "-o", out, "--fprate=0.1"], "build",
             "did you mean --fp_rate"),
            (["build", keys, "-o", out, "--bits_per_key=x"], "build",
             "--bits_per_key"),
            (["redis", "info", "--name=a", "--passwrd_file=x"], "redis",
             "unknown flag"),
            (["--frobnicate"], "", "unknown flag --frobnicate"),
        ]
        for args, command, text in cases:
            with self.subTest(args=args):
                result = self.check_run(args, code=EXIT_USAGE)
                err = result.stderr.decode()
                self.assertNotIn("RAW:", err)
                self.assertNotIn("Did you really mean", err)
                self.assertNotIn("ERROR:", err)
                prefix = "blockbloom %s: error: " % command if command else \
                    "blockbloom: error: "
                self.assertTrue(err.startswith(prefix), err)
                self.assertIn(text, err)
                self.assertIn("Run 'blockbloom help", err)
        self.assertFalse(os.path.exists(out))
        # A value that looks like a flag is still a value where one is due.
        dash = self.path("-dash.bbf")
        self.check_run(["build", keys, "-o", dash])
        self.assertTrue(os.path.exists(dash))

    def test_duplicates_are_counted_and_estimated(self):
        # Three copies of the same keys, not adjacent: the summary says what
        # it counted (keys added, adjacent duplicates once) and how many
        # distinct keys the bits say there are, and warns that the filter is
        # sized for three times too many.
        keys = numbered(b"user:", 50000)
        data = lines(keys) * 3
        result = self.check_run(["build", "-", "-o", self.path("f.bbf")],
                                stdin=data)
        out = result.stdout.decode()
        self.assertIn("keys read:      150000", out)
        self.assertNotIn("150000 distinct", out)
        m = re.search(r"distinct keys:  about (\d+)", out)
        self.assertIsNotNone(m, out)
        self.assertLess(abs(int(m.group(1)) - 50000), 1000)
        err = result.stderr.decode()
        self.assertIn("repeat", err)
        self.assertIn("sort -u", err)
        # Without duplicates: the estimate, and no warning.
        result = self.check_run(["build", "-", "-o", self.path("g.bbf")],
                                stdin=lines(keys))
        m = re.search(r"distinct keys:  about (\d+)", result.stdout.decode())
        self.assertLess(abs(int(m.group(1)) - 50000), 1000)
        self.assertEqual(result.stderr, b"")

    def test_useless_false_positive_rates_are_refused(self):
        keys = self.write("keys.txt", lines(numbered(b"k", 1000)))
        out = self.path("f.bbf")
        for flag in ("--bits_per_key=1e-300", "--bits_per_key=0.5",
                     "--bits_per_key=1", "--fp_rate=0.9999999",
                     "--fp_rate=0.5"):
            for command in (["build", keys, "-o", out], ["bench"]):
                with self.subTest(flag=flag, command=command[0]):
                    result = self.check_run(command + [flag], code=EXIT_USAGE)
                    self.assertIn("false-positive rate", result.stderr.decode())
        self.assertFalse(os.path.exists(out))
        self.check_run(["build", keys, "-o", out, "--fp_rate=0.3"])
        self.check_run(["build", keys, "-o", out, "--bits_per_key=2"])


class InteractiveQueryTest(CliTestCase):

    def test_answers_each_line_on_a_terminal(self):
        # Keys typed at a terminal are answered one line at a time, not when
        # a batch of 1024 fills or the input ends.
        f = self.build(numbered(b"k", 100))
        master, slave = pty.openpty()
        proc = subprocess.Popen([BLOCKBLOOM, "query", f], stdin=slave,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        os.close(slave)
        try:
            for key, answer in ((b"k5", b"1\n"), (b"not-there", b"0\n"),
                                (b"k99", b"1\n")):
                os.write(master, key + b"\n")
                ready, _, _ = select.select([proc.stdout], [], [], 30)
                self.assertTrue(ready, "no answer to %r before the input "
                                "ended" % key)
                self.assertEqual(os.read(proc.stdout.fileno(), 100), answer)
            os.write(master, b"\x04")  # end of input
            self.assertEqual(proc.wait(timeout=60), EXIT_OK)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            os.close(master)
            proc.stdout.close()
            proc.stderr.close()


class BenchTest(CliTestCase):

    def test_bench_runs(self):
        out = self.check_run(["bench", "--keys=20000"]).stdout.decode()
        self.assertIn("SIMD target", out)
        self.assertIn("probe, single:", out)
        self.assertIn("probe, batch:", out)
        self.assertIn("M keys/s", out)
        self.assertRegex(out, r"FPR: +[0-9.]+% measured \(\d+ of 20000")
        out = self.check_run(["bench", "--keys=5000", "--fp_rate=0.001",
                              "--seed=3"]).stdout.decode()
        self.assertIn("5000 keys", out)


def main():
    global BLOCKBLOOM, TESTDATA
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--blockbloom", required=True)
    parser.add_argument("--testdata", required=True)
    args, rest = parser.parse_known_args()
    BLOCKBLOOM = os.path.abspath(args.blockbloom)
    TESTDATA = os.path.abspath(args.testdata)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
