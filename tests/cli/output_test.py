#!/usr/bin/env python3
"""End-to-end tests of the blockbloom command-line tool: what it writes: builds
that fail leave nothing behind, and output files of every kind.

    output_test.py --blockbloom=PATH --testdata=DIR [unittest arguments]

Shared helpers: cli_support.py.
"""

import os
import resource
import signal
import socket
import stat
import subprocess
import unittest

import cli_support
from cli_support import (CliTestCase, EXIT_BAD_INPUT, EXIT_OK, EXIT_USAGE,
                         EXIT_WRITE_ERROR, length_prefixed, lines, numbered)


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
            [cli_support.BLOCKBLOOM, "build", self.keys, "-o",
             self.path("f.bbf")],
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
            [cli_support.BLOCKBLOOM, "build", self.keys, "-o",
             self.path("f.bbf")],
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
                            [cli_support.BLOCKBLOOM, "build"] + args,
                            stdin=stdin, capture_output=True, timeout=120)
                else:
                    result = subprocess.run(
                        [cli_support.BLOCKBLOOM, "build"] + args, cwd=how,
                        capture_output=True, timeout=120)
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
                    [cli_support.BLOCKBLOOM, "build", self.keys, "-o", new],
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


if __name__ == "__main__":
    cli_support.main()
