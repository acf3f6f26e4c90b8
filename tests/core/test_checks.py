"""The code checks as tests: ``ruff check`` and ``mypy`` (configured in pyproject.toml, see "Checks" in
docs/internals.md) pass on the whole tree, so that README's test command is also the gate that keeps
lint and type errors out."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(*argv: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.mark.skipif(not (ROOT / "pyproject.toml").exists(), reason="not a source checkout")
def test_ruff_finds_nothing():
    done = _run("ruff", "check", "--no-cache", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.skipif(not (ROOT / "pyproject.toml").exists(), reason="not a source checkout")
def test_mypy_finds_nothing():
    done = _run("mypy", timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
