#!/usr/bin/env python3
"""End-to-end tests of the blockbloom command-line tool: messages and exit codes,
usage errors, --version and --help.

    messages_test.py --blockbloom=PATH --testdata=DIR [unittest arguments]

Shared helpers: cli_support.py.
"""

import json
import os
import re
import subprocess

import cli_support
from cli_support import (CliTestCase, EXIT_OK, EXIT_USAGE, EXIT_WRITE_ERROR,
                         lines, numbered)


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
        # packaging check runs the installed tool with it. The version is
        # the three numbers of include/blockbloom/version.h, its one source.
        header = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                              "..", "..", "include", "blockbloom", "version.h")
        with open(header) as f:
            text = f.read()
        version = ".".join(
            re.search(r"^inline constexpr int kVersion%s = ([0-9]+);$" % part,
                      text, re.MULTILINE).group(1)
            for part in ("Major", "Minor", "Patch"))
        for flag in ("--version", "-version"):
            with self.subTest(flag=flag):
                result = self.check_run([flag])
                self.assertEqual(result.stdout.decode(),
                                 "blockbloom %s\n" % version)
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
                    result = subprocess.run([cli_support.BLOCKBLOOM] + args,
                                            stdout=full,
                                            stderr=subprocess.PIPE,
                                            timeout=120)
                self.assertEqual(result.returncode, EXIT_WRITE_ERROR,
                                 result.stderr)
                err = result.stderr.decode()
                self.assertIn("standard output", err)
                self.assertIn("No space left on device", err)
        # The filter itself was written, and the message says so.
        with open("/dev/full", "wb") as full:
            result = subprocess.run([cli_support.BLOCKBLOOM, "build",
                                     "--seed=3", keys, "-o", f], stdout=full,
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
                out = subprocess.run([os.fsencode(cli_support.BLOCKBLOOM),
                                      b"info", b"--json", path],
                                     capture_output=True, timeout=120)
                self.assertEqual(out.returncode, EXIT_OK, out.stderr)
                info = json.loads(out.stdout.decode("utf-8"))  # strict
                self.assertEqual(info["file"],
                                 path.decode("utf-8", errors="replace"))

    def test_progress_bar_counts_what_was_read(self):
        # Each frame counts the keys and bytes consumed so far ("1 key", not
        # "1 keys, 1.0 MiB" of read-ahead); the last one reaches 100%.
        keys = numbered(b"key-", 200000)
        self.write("keys.txt", lines(keys))
        seen, code = self.build_under_pty([], write_keys=False)
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


if __name__ == "__main__":
    cli_support.main()
