"""Resume: a tournament killed with SIGKILL at random points ends exactly like one never interrupted.

A real ``kothkit run`` (a subprocess) is killed at seeded random moments, and
started again on the same journal until it finishes; the first start gives
``--seed``, the later ones rely on the journal's last seed.  The result must
match an uninterrupted run with the same seed: identical standings and
identical game records (``GameRecord.result_key()`` of every game of both
journals).  After each kill, no bot process may survive the judge.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kothkit.store.journal import Journal, stored_count
from kothkit.testing.procs import processes_touching

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "plugins" / "gomoku_swap2" / "bots"
SEED = 4242
ROUNDS = 3
GAMES = 3 * 2 * ROUNDS  # three bundled bots


def wait_gone(folder: Path, deadline: float = 15.0) -> list[str]:
    """Processes still touching ``folder`` once they had ``deadline`` seconds to die (workers unwind)."""
    end = time.monotonic() + deadline
    while (left := processes_touching(folder)) and time.monotonic() < end:
        time.sleep(0.05)
    return left


def run_args(bots: Path, db: Path, out: Path, jobs: int, seed: int | None) -> list[str]:
    args = [sys.executable, "-m", "kothkit", "run", "gomoku_swap2", "--bots", str(bots), "--jobs", str(jobs),
            "--rounds", str(ROUNDS), "--move-time", "5", "--db", str(db), "--json", str(out), "-q"]
    return args + (["--seed", str(seed)] if seed is not None else [])


def keys(db: Path) -> list[tuple]:
    with Journal(db) as j:
        return sorted(r.result_key() for r in j.all())


@pytest.mark.slow
@pytest.mark.parametrize("jobs", [1, 2])
def test_sigkilled_tournament_resumes_to_the_same_result(cli, tmp_path, jobs):
    bots = tmp_path / "bots"
    shutil.copytree(BUNDLED, bots, ignore=shutil.ignore_patterns(".kothkit-build", "__pycache__"))
    env = {**os.environ, "COLUMNS": "200"}

    # The reference: never interrupted.
    ref_db, ref_out = tmp_path / "ref.sqlite", tmp_path / "ref.json"
    done = subprocess.run(run_args(bots, ref_db, ref_out, jobs, SEED), capture_output=True, text=True, timeout=300,
                          env=env, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout + done.stderr
    ref = json.loads(ref_out.read_text())
    assert ref["played"] == GAMES

    db, out = tmp_path / "resumed.sqlite", tmp_path / "resumed.json"
    rng = random.Random(jobs)
    kills, partial, finished = 0, [], None
    for attempt in range(8):
        seeded = not db.exists() or Journal(db).last_run("gomoku_swap2") is None
        p = subprocess.Popen(run_args(bots, db, out, jobs, SEED if seeded else None), stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, env=env, stdin=subprocess.DEVNULL)
        # Odd attempts die after a random moment (often while starting up or in the first game);
        # even ones once a random number of games is in the journal (so, mostly, mid-game).
        stored = stored_count(db)
        target = rng.randint(stored + 1, GAMES - 1) if stored + 1 < GAMES else GAMES
        deadline = time.monotonic() + (rng.uniform(0.05, 1.0) if attempt % 2 else 300)
        while p.poll() is None and time.monotonic() < deadline and (attempt % 2 or stored_count(db) < target):
            time.sleep(0.01)
        if p.poll() is None:
            p.kill()  # SIGKILL, the judge only: its workers and bots must follow it
            kills += 1
        text, _ = p.communicate(timeout=60)
        if p.returncode == 0:
            finished = text
            break
        assert p.returncode == -9, text
        assert wait_gone(bots) == [], f"bot processes survived the judge (attempt {attempt})"
        partial.append(stored_count(db))
    if finished is None:
        done = subprocess.run(run_args(bots, db, out, jobs, None), capture_output=True, text=True, timeout=300,
                              env=env, stdin=subprocess.DEVNULL)
        assert done.returncode == 0, done.stdout + done.stderr
        finished = done.stdout
    assert kills >= 1
    assert any(0 < n < GAMES for n in partial), partial  # killed mid-tournament at least once
    doc = json.loads(out.read_text())
    assert doc["seed"] == SEED
    assert doc["reused"] == max(partial) and doc["played"] == GAMES - max(partial)
    assert f"games: {doc['played']} played, {doc['reused']} reused" in finished

    assert doc["standings"] == ref["standings"]
    assert keys(db) == keys(ref_db)
    assert len(keys(db)) == GAMES
    assert wait_gone(bots) == []
