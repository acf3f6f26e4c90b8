"""A check that runs beside the tests: started once the tests are collected, at a low priority
(nice 10) so that the bots of the tests being played get the cores first, and awaited by its test.

mypy is the one (tests/core/test_checks.py): a cold run (no .mypy_cache, as in CI) analyses about
1,300 modules and takes 30-50 s of one core, time the suite otherwise spends mostly waiting on
bots, pipes and time limits.  ``tests/conftest.py`` starts it when its test is collected; the test
waits for it under a deadline and asserts on its exit code and output, as if it had run it itself.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest


class Background:
    """A command running in the background, its output in a temporary file; killed and reaped by
    :meth:`stop` (at the end of the session, if its test did not wait for it)."""

    def __init__(self, argv: list[str], cwd: Path, nice: int = 10) -> None:
        self.argv = argv
        self.started = time.monotonic()
        self._out = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=self._out,
                                     stderr=subprocess.STDOUT, preexec_fn=lambda: os.nice(nice))

    def result(self, timeout: float) -> subprocess.CompletedProcess[str]:
        """Its exit code and output, once it ends; killed past ``timeout`` s from its start."""
        left = max(1.0, self.started + timeout - time.monotonic())
        try:
            self.proc.wait(left)
        except subprocess.TimeoutExpired:
            self.stop()
            raise AssertionError(f"{' '.join(self.argv)} did not finish within {timeout} s") from None
        self._out.seek(0)
        text = self._out.read().decode(errors="replace")
        self._out.close()
        return subprocess.CompletedProcess(self.argv, self.proc.returncode, text, "")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(30)
        self._out.close()  # (again: a no-op)


#: The checks started in the background, by name ("mypy"), in the session's stash.
RUNNING = pytest.StashKey[dict[str, Background]]()
#: mypy as its test runs it (configured in pyproject.toml), and that test's node id (its end).
MYPY = [sys.executable, "-m", "mypy"]
MYPY_TEST = "test_checks.py::test_mypy_finds_nothing"
