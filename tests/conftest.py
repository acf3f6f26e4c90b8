"""Shared fixtures: run the real ``kothkit`` command line in a subprocess, with a deadline."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kothkit.testing.procs import TIME_SCALE

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "bots"


class CLI:
    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.n = 0

    def __call__(self, *args: str, timeout: float = 120, check: bool = False, cwd: Path | None = None,
                 env: dict | None = None) -> subprocess.CompletedProcess:
        proc = subprocess.run(
            [sys.executable, "-m", "kothkit", *map(str, args)], cwd=cwd or self.tmp, capture_output=True, text=True,
            timeout=timeout * TIME_SCALE, stdin=subprocess.DEVNULL, env={**os.environ, "COLUMNS": "200", **(env or {})},
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"kothkit {' '.join(map(str, args))} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
        return proc

    def run_json(self, *args: str, timeout: float = 120) -> dict:
        """``kothkit run ARGS --json F --db D`` (fresh files each call); returns the document."""
        self.n += 1
        out = self.tmp / f"run{self.n}.json"
        db = self.tmp / f"run{self.n}.sqlite"
        extra = [] if "--db" in args else ["--db", str(db)]
        self(*args, "--json", str(out), *extra, timeout=timeout, check=True)
        return json.loads(out.read_text())


@pytest.fixture(autouse=True)
def private_core_locks(tmp_path_factory, monkeypatch) -> Path:
    """Each test claims cores in a lock folder of its own (kothkit.procs.cores), never the machine's:
    another judge on the machine (a ``kothkit serve``, a user's run, another suite) holds cores
    there, which would decide where a test's judges play and what they print.  The judges a test
    starts inherit the setting, so those of one test still see each other's claims."""
    folder = tmp_path_factory.mktemp("cores")
    monkeypatch.setenv("KOTHKIT_CORES_DIR", str(folder))
    return folder


@pytest.fixture
def cli(tmp_path) -> CLI:
    return CLI(tmp_path)


@pytest.fixture(scope="session")
def browser():
    """The system's Chromium, headless, driven by Playwright: one for the whole session, shared by
    every page test (a second sync Playwright in the same thread refuses to start)."""
    from tests.results.browser import launch_browser

    yield from launch_browser()


def pytest_collection_finish(session) -> None:
    """mypy starts as soon as its test is collected and runs beside the others (tests/background.py)."""
    try:
        from tests.background import MYPY, MYPY_TEST, RUNNING, Background
    except ImportError:  # ``tests`` not importable (pytest run in another way): mypy's test runs it itself
        return
    running: dict = {}
    session.config.stash[RUNNING] = running
    if (ROOT / "pyproject.toml").exists() and any(item.nodeid.endswith(MYPY_TEST) for item in session.items):
        running["mypy"] = Background(MYPY, ROOT)


def pytest_sessionfinish(session) -> None:
    """A background check its test did not wait for (a narrowed or stopped run) is killed and reaped."""
    try:
        from tests.background import RUNNING
    except ImportError:
        return
    for check in session.config.stash.get(RUNNING, {}).values():
        check.stop()


@pytest.fixture
def pip_no_compile(monkeypatch):
    """pip in the throw-away venvs of the install tests (kothkit.testing.sandbox) writes no .pyc of
    what it installs: byte-compiling numpy and scipy alone takes 20 s of a 2-core machine and proves
    nothing; Python still compiles what it imports, when it imports it."""
    monkeypatch.setenv("PIP_NO_COMPILE", "1")
