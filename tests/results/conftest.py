"""Journals of small real tournaments (real bots, real pipes), played once per test session and
shared by the tests of ``show``, ``export``, the replay pages and ``report``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TB = ROOT / "tests" / "bots"


def kothkit(*args, cwd: Path, timeout: float = 300, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run([sys.executable, "-m", "kothkit", *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL,
                          env={**os.environ, "COLUMNS": "200"})
    if check and proc.returncode != 0:
        raise AssertionError(f"kothkit {' '.join(map(str, args))} exited {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


@pytest.fixture(scope="session")
def classic12(tmp_path_factory) -> Path:
    """gomoku_classic12 with faults of three kinds: tardy (timeout, with its late reply, DEBUG and
    stderr lines), malformed (invalid-reply), out_of_turn (out-of-turn), against steady."""
    d = tmp_path_factory.mktemp("classic12")
    bots = d / "bots"
    for b in ("steady", "tardy", "malformed", "out_of_turn"):
        shutil.copytree(TB / "classic12" / b, bots / b)
    kothkit("run", "gomoku_classic12", "--bots", bots, "--seed", "5", "--jobs", "2", "--move-time", "0.3",
            "--db", d / "j.sqlite", "-q", cwd=d)
    return d / "j.sqlite"


@pytest.fixture(scope="session")
def swap2(tmp_path_factory) -> Path:
    """gomoku_swap2: two bundled bots that play games to five in a row, and a bot that crashes."""
    d = tmp_path_factory.mktemp("swap2")
    kothkit("run", "gomoku_swap2", "--bots", ROOT / "plugins" / "gomoku_swap2" / "bots" / "threat",
            "--bots", ROOT / "plugins" / "gomoku_swap2" / "bots" / "scout", "--bots", TB / "swap2" / "crasher",
            "--seed", "7", "--jobs", "2", "--db", d / "j.sqlite", "-q", cwd=d)
    return d / "j.sqlite"


@pytest.fixture(scope="session")
def connect4(tmp_path_factory) -> Path:
    """connect4_hidden: two bundled function bots and one that returns garbage."""
    d = tmp_path_factory.mktemp("connect4")
    bots = ROOT / "plugins" / "connect4_hidden" / "bots"
    kothkit("run", "connect4_hidden", "--bots", bots / "random_player", "--bots", bots / "better_constant_player",
            "--bots", f"{TB / 'connect4' / 'garbage.py'}:word_column", "--rounds", "1", "--seed", "3",
            "--jobs", "2", "--db", d / "j.sqlite", "-q", cwd=d)
    return d / "j.sqlite"
