#!/usr/bin/env python3
"""End-to-end tests of the blockbloom command-line tool: the progress bar and
interactive queries on a terminal.

    terminal_test.py --blockbloom=PATH --testdata=DIR [unittest arguments]

Shared helpers: cli_support.py.
"""

import os
import pty
import select
import subprocess

import cli_support
from cli_support import (CliTestCase, EXIT_OK, lines, numbered)


class ProgressBarTest(CliTestCase):

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


class InteractiveQueryTest(CliTestCase):

    def test_answers_each_line_on_a_terminal(self):
        # Keys typed at a terminal are answered one line at a time, not when
        # a batch of 1024 fills or the input ends.
        f = self.build(numbered(b"k", 100))
        master, slave = pty.openpty()
        proc = subprocess.Popen([cli_support.BLOCKBLOOM, "query", f],
                                stdin=slave, stdout=subprocess.PIPE,
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


if __name__ == "__main__":
    cli_support.main()
