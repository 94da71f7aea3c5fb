#!/usr/bin/env python3
"""End-to-end tests of the blockbloom command-line tool: what it reads: key files
and their line rules, bad filters, and hostile inputs it must read in bounded
memory.

    input_test.py --blockbloom=PATH --testdata=DIR [unittest arguments]

Shared helpers: cli_support.py.
"""

import json
import os
import resource
import subprocess
import threading

import cli_support
from cli_support import (CliTestCase, EXIT_BAD_INPUT, EXIT_OK, EXIT_USAGE,
                         numbered)


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
        with open(cli_support.BLOCKBLOOM, "rb") as f:
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
    """info and query (and redis publish) bound the memory any input can
    make them allocate: huge sparse files, /dev/zero, endless pipes, files
    that grow, zstd bombs. Exit 2 with a message, never an abort (issue 18)."""

    def check_bounded(self, args, reason, stdin=None, **limits):
        data = stdin if isinstance(stdin, bytes) else None
        result = subprocess.run([cli_support.BLOCKBLOOM] + args,
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
                [cli_support.BLOCKBLOOM, "bench", "--keys=4294967296"],
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
            result = subprocess.run(
                [cli_support.BLOCKBLOOM, "info", "--json", "-"],
                stdin=stdin, capture_output=True, timeout=120)
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
        result = subprocess.run([cli_support.BLOCKBLOOM, "info", f],
                                capture_output=True, timeout=120,
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


if __name__ == "__main__":
    cli_support.main()
