"""A private redis-server for a test: tests/cli/redis_cli_test.py and
examples/cache_guard_smoke.py.

The server gets a free loopback port, but another process (another test
under `ctest -j`) may take that port before redis-server binds it. Then our
server exits ("address already in use") while a PING on the port would be
answered by the OTHER server. So readiness means: our process is alive and
the server on the port reports our process id (INFO server); if our process
exited, we retry on a new port, and after a few attempts raise with the
server's log.
"""

import ctypes
import os
import re
import signal
import socket
import subprocess
import time


def free_port():
    """A loopback port nothing listens on (at the time of the call)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def die_with_parent():
    """In the child: SIGKILL when the test process dies (PR_SET_PDEATHSIG),
    so a killed test never leaves a server behind."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


def _encode(args):
    return b"*%d\r\n" % len(args) + b"".join(
        b"$%d\r\n%s\r\n" % (len(a), a) for a in args)


class RedisServer:
    """redis-server on a free loopback port, no persistence, its files (and
    its log, `log_path`) in `directory`. stop() kills it (also call it on
    failure); it dies with the test process in any case."""

    def __init__(self, redis_server, directory, attempts=5, timeout=10,
                 extra_args=()):
        self.process = None
        # A server started with --requirepass: our own commands AUTH first.
        args = list(extra_args)
        self.password = (args[args.index("--requirepass") + 1].encode()
                         if "--requirepass" in args else None)
        logs = []
        for attempt in range(attempts):
            self.port = free_port()
            self.log_path = os.path.join(os.path.abspath(directory),
                                         "redis-server.%d.log" % attempt)
            with open(self.log_path, "wb") as log:
                self.process = subprocess.Popen(
                    [redis_server, "--port", str(self.port), "--bind",
                     "127.0.0.1", "--save", "", "--appendonly", "no",
                     "--dir", directory, *extra_args],
                    stdin=subprocess.DEVNULL, stdout=log,
                    stderr=subprocess.STDOUT, preexec_fn=die_with_parent)
            if self._wait_until_ready(timeout):
                return
            self.stop()
            logs.append("attempt %d, port %d:\n%s" %
                        (attempt + 1, self.port, self.log()))
        raise RuntimeError("redis-server %s did not start:\n%s" %
                           (redis_server, "\n".join(logs)))

    def _wait_until_ready(self, timeout):
        deadline = time.monotonic() + timeout
        pid = b"process_id:%d\r\n" % self.process.pid
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False  # e.g. the port was taken: retry on another
            try:
                if pid in self.info(b"server"):
                    return True
                # Another server answers on our port: ours will exit.
            except (OSError, ValueError):
                pass
            time.sleep(0.05)
        return False

    def log(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read().decode(errors="replace")
        except OSError as e:
            return "(no log: %s)" % e

    @property
    def url(self):
        return "redis://127.0.0.1:%d" % self.port

    def _connect(self, timeout):
        s = socket.create_connection(("127.0.0.1", self.port), timeout)
        if self.password is not None:
            s.sendall(_encode([b"AUTH", self.password]))
            if not s.recv(4096).startswith(b"+OK"):
                s.close()
                raise ValueError("AUTH failed")
        return s

    def command(self, *args):
        """Sends one command (RESP) and returns the first reply line."""
        with self._connect(5) as s:
            s.sendall(_encode(args))
            return s.recv(4096).split(b"\r\n")[0]

    def keys(self, pattern=b"*"):
        """The keys matching `pattern` (KEYS: for tests on small servers)."""
        with self._connect(5) as s:
            s.sendall(_encode([b"KEYS", pattern]))
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
                # A complete reply: the count, then that many bulk strings.
                lines = data.split(b"\r\n")
                n = int(lines[0][1:])
                if len(lines) >= 2 * n + 2:
                    return [lines[2 + 2 * i] for i in range(n)]

    def info(self, section):
        """INFO `section`: the bulk string's bytes."""
        with self._connect(1) as s:
            s.sendall(_encode([b"INFO", section]))
            data = b""
            while b"\r\n" not in data:
                chunk = s.recv(4096)
                if not chunk:
                    raise ValueError("INFO: connection closed")
                data += chunk
            header, _, body = data.partition(b"\r\n")
            match = re.fullmatch(rb"\$(\d+)", header)
            if not match:
                raise ValueError("INFO: %r" % header)
            length = int(match.group(1))
            while len(body) < length:
                chunk = s.recv(65536)
                if not chunk:
                    raise ValueError("INFO: connection closed")
                body += chunk
            return body[:length]

    def stop(self):
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
