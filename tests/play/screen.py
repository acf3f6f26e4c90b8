"""A real terminal for ``kothkit play``: the command runs on a pseudo-terminal, the test types lines
and reads the screen, every read under a deadline; the child is killed in ``close``."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
from pathlib import Path


class Screen:
    def __init__(self, args: list[str], cwd: Path, launcher: list[str] | None = None):
        """``launcher``: what runs kothkit (default ``python -m kothkit``; a test game's launcher script)."""
        master, slave = os.openpty()
        try:
            self.proc = subprocess.Popen(
                [*(launcher or [sys.executable, "-m", "kothkit"]), *args], stdin=slave, stdout=slave, stderr=slave, cwd=cwd,
                env={**os.environ, "COLUMNS": "200", "TERM": "dumb"}, start_new_session=True, close_fds=True)
        finally:
            os.close(slave)
        self.fd = master
        self.text = ""
        self.pos = 0
        self.eof = False

    def _read(self, until: float) -> bool:
        ready, _, _ = select.select([self.fd], [], [], max(0.0, until - time.monotonic()))
        if not ready:
            return False
        try:
            data = os.read(self.fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            data = b""
        if not data:
            self.eof = True
            return False
        self.text += data.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "")
        return True

    def expect(self, pattern: str, timeout: float = 60) -> re.Match:
        """The first match of ``pattern`` in what the screen shows after the last match."""
        rx = re.compile(pattern)
        until = time.monotonic() + timeout
        while True:
            m = rx.search(self.text, self.pos)
            if m is not None:
                self.pos = m.end()
                return m
            if self.eof or time.monotonic() >= until:
                raise AssertionError(f"no {pattern!r} on the screen within {timeout} s"
                                     f"{' (the program ended)' if self.eof else ''}; it shows:\n"
                                     f"{self.text[-3000:]}")
            self._read(until)

    def type(self, line: str) -> None:
        os.write(self.fd, (line + "\n").encode())

    def wait(self, timeout: float = 30) -> int:
        until = time.monotonic() + timeout
        while not self.eof and time.monotonic() < until:
            self._read(until)
        return self.proc.wait(timeout=max(0.1, until - time.monotonic()))

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait(timeout=10)
        os.close(self.fd)
