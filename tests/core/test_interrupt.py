"""Ctrl-C: a real ``kothkit run`` gets SIGINT mid-batch and stops within a second, storing every
game that finished and killing the rest; one Ctrl-C is enough, and the run resumes from the journal.

The plodder bots take 0.05 s a move (a game takes about 0.35 s), so the signal finds games
finished inside a batch that is still being played (function bots play in batches): those must
be stored, not thrown away with the batch.  The signal goes to the judge's process group, as a
terminal's Ctrl-C does, or to the judge alone (which must then stop its workers itself).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kothkit.store.journal import Journal, stored_count
from kothkit.testing.procs import cgroups_made_by, descendants, processes_touching

ROOT = Path(__file__).resolve().parents[2]
PLODDER = ROOT / "tests" / "bots" / "connect4" / "plodder.py"
ROUNDS = 6
GAMES = 2 * ROUNDS


def command(bots: Path, db: Path, jobs: int) -> list[str]:
    return [sys.executable, "-m", "kothkit", "run", "connect4_hidden", "--bots", f"{bots / 'plodder.py'}:plodder",
            "--bots", f"{bots / 'plodder.py'}:plodder_too", "--rounds", str(ROUNDS), "--seed", "9",
            "--jobs", str(jobs), "--db", str(db), "-q"]


def started(db: Path, deadline: float = 60.0) -> None:
    """Wait until the judge has recorded its run (it then starts playing)."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        try:
            with Journal(db) as j:
                if j.last_run("connect4_hidden") is not None:
                    return
        except Exception:
            pass
        time.sleep(0.05)
    raise AssertionError("the judge never started its run")


@pytest.mark.parametrize("jobs, target", [(1, "group"), (2, "group"), (2, "judge")])
def test_ctrl_c_stores_the_finished_games_and_stops_within_a_second(tmp_path, jobs, target):
    bots = tmp_path / "bots"
    bots.mkdir()
    shutil.copy(PLODDER, bots)
    db = tmp_path / "j.sqlite"
    judge = subprocess.Popen(command(bots, db, jobs), cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             stdin=subprocess.DEVNULL, text=True, start_new_session=True)
    try:
        started(db)
        time.sleep(2.0)  # a few games finish; at --jobs 1 they are all in one batch still being played
        before = stored_count(db)
        family = descendants(judge.pid) | {judge.pid}
        sent = time.monotonic()
        if target == "group":
            os.killpg(judge.pid, signal.SIGINT)
        else:
            os.kill(judge.pid, signal.SIGINT)
        out, err = judge.communicate(timeout=30)
        took = time.monotonic() - sent
    finally:
        if judge.poll() is None:
            os.killpg(judge.pid, signal.SIGKILL)
            judge.wait()
    assert judge.returncode == 130, (out, err)
    assert "interrupted: every game that finished is in" in err and "Traceback" not in err, err
    # It stops in 0.1-0.3 s on a quiet machine (the goal is 1 s; before, 5.7-6.7 s); the margin is
    # for a loaded CI machine, where the judge's own exit (its workers reaped) can take longer.
    assert took < 2.5, f"took {took:.2f} s to stop"
    kept = stored_count(db)
    assert kept >= max(before, 1), (before, kept)
    assert kept < GAMES  # the run was cut short
    assert not processes_touching(bots), processes_touching(bots)
    assert cgroups_made_by(family) == []  # the killed workers' too: the judge removed them
    # The stored games are whole games, and the run resumes with them: only the others are played.
    again = subprocess.run(command(bots, db, jobs), cwd=tmp_path, capture_output=True, text=True, timeout=120,
                           stdin=subprocess.DEVNULL)
    assert again.returncode == 0, again.stderr
    assert f"games: {GAMES - kept} played, {kept} reused, {GAMES} in all" in again.stdout, again.stdout
