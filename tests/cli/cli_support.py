#!/usr/bin/env python3
"""What the end-to-end tests of the blockbloom command-line tool share: the
binary under test, its exit codes, running it, key lists, the test case
(a temporary directory, check_run, build, info, query, count, a build under
a terminal) and main().

The tests are split by role, each file run the same way:

    roundtrip_test.py  build, info, query and bench round trips; golden files
    input_test.py      what the tool reads: keys, bad filters, hostile inputs
    output_test.py     what the tool writes: failed builds, output files
    terminal_test.py   the progress bar and interactive queries on a terminal
    messages_test.py   messages, exit codes, usage and --help

    FILE --blockbloom=PATH --testdata=DIR [unittest arguments]

e.g. `roundtrip_test.py --blockbloom=build/release/tools/blockbloom
--testdata=tests/testdata RoundTripTest.test_build_info_query`. ctest runs
each test on its own (tests/cli/CMakeLists.txt). Deterministic: fixed keys,
no timing assertions.
"""

import argparse
import json
import os
import pty
import select
import struct
import subprocess
import sys
import tempfile
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


def main():
    """Reads --blockbloom and --testdata; runs the calling file's tests."""
    global BLOCKBLOOM, TESTDATA
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--blockbloom", required=True)
    parser.add_argument("--testdata", required=True)
    args, rest = parser.parse_known_args()
    BLOCKBLOOM = os.path.abspath(args.blockbloom)
    TESTDATA = os.path.abspath(args.testdata)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
