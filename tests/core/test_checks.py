"""The code checks as tests: ``ruff check`` and ``mypy`` (configured in pyproject.toml, see "Checks" in
docs/internals.md) pass on the whole tree, so that README's test command is also the gate that keeps
lint and type errors out.  mypy, the slow one, starts as soon as the tests are collected and runs
beside them at a low priority (tests/background.py); its test waits for it here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.background import MYPY, RUNNING, Background

ROOT = Path(__file__).resolve().parents[2]


def _run(*argv: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.mark.skipif(not (ROOT / "pyproject.toml").exists(), reason="not a source checkout")
def test_ruff_finds_nothing():
    done = _run("ruff", "check", "--no-cache", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.skipif(not (ROOT / "pyproject.toml").exists(), reason="not a source checkout")
def test_mypy_finds_nothing(request):
    check = request.config.stash.get(RUNNING, {}).get("mypy")
    if check is None:  # not started with the session (another conftest, a plugin run): run it now
        check = Background(MYPY, ROOT, nice=0)
    done = check.result(timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
