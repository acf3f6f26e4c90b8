"""Durability and determinism hold for every bundled game, program bots and function bots alike:
results do not depend on --jobs, a SIGKILLed judge resumes to the same games, and a changed bot
has only its own games played again."""

from __future__ import annotations

import json
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kothkit.store.journal import Journal, stored_count
from kothkit.testing.procs import processes_touching

ROOT = Path(__file__).resolve().parents[2]
#: game -> (extra run arguments, the bundled bot to change)
GAMES = {
    "gomoku_classic12": (["--rounds", "1"], "pywindow"),
    # 800 games a run: function bots play in batches that grow while they are quick (tournament.py's
    # dispatch), so --jobs 1, 2 and 4 still cut the round robin into different batches.
    "connect4_hidden": (["--rounds", "40"], "deducer"),
}
#: The SIGKILL test's runs: long enough that the judge is killed before it finishes.
KILLED = {"connect4_hidden": ["--rounds", "150"]}


def bots_copy(game: str, tmp: Path) -> Path:
    dest = tmp / "bots"
    shutil.copytree(ROOT / "plugins" / game / "bots", dest,
                    ignore=shutil.ignore_patterns(".kothkit-build", "brain", "__pycache__"))
    return dest


def keys(db: Path) -> list[tuple]:
    with Journal(db) as j:
        return sorted(r.result_key() for r in j.all())


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(GAMES))
def test_same_results_at_any_jobs(cli, tmp_path, game):
    extra, _ = GAMES[game]
    bots = bots_copy(game, tmp_path)
    docs = [cli.run_json("run", game, "--bots", bots, "--seed", "11", "--jobs", str(j), *extra, timeout=600)
            for j in (1, 2, 4)]
    for d in docs[1:]:
        assert d["standings"] == docs[0]["standings"]
        assert sorted(map(json.dumps, (dict(g, times_ms=None) for g in d["games"]))) == \
            sorted(map(json.dumps, (dict(g, times_ms=None) for g in docs[0]["games"])))


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(GAMES))
def test_sigkilled_judge_resumes_to_the_same_games(cli, tmp_path, game):
    extra = KILLED.get(game, GAMES[game][0])
    bots = bots_copy(game, tmp_path)
    whole = tmp_path / "whole.sqlite"
    cli("run", game, "--bots", bots, "--seed", "5", "--jobs", "2", "--db", whole, *extra, check=True, timeout=600)
    total = stored_count(whole)
    cut = tmp_path / "cut.sqlite"
    argv = [sys.executable, "-m", "kothkit", "run", game, "--bots", str(bots), "--seed", "5", "--jobs", "2",
            "--db", str(cut), "-q", *extra]
    judge = subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             stdin=subprocess.DEVNULL)
    try:
        end = time.monotonic() + 300
        while stored_count(cut) == 0 and judge.poll() is None and time.monotonic() < end:
            time.sleep(0.02)
        judge.send_signal(signal.SIGKILL)
    finally:
        judge.kill()
        judge.wait(timeout=60)
    assert stored_count(cut) < total, "the judge finished before it could be killed: make the run longer"
    end = time.monotonic() + 30
    while (left := processes_touching(bots)) and time.monotonic() < end:
        time.sleep(0.05)
    assert left == []
    r = cli("run", game, "--bots", bots, "--jobs", "2", "--db", cut, *extra, check=True, timeout=600)
    assert "reused" in r.stdout and "journal's last seed" in r.stdout
    assert keys(cut) == keys(whole)


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(GAMES))
def test_only_the_changed_bots_games_are_played_again(cli, tmp_path, game):
    extra, changed = GAMES[game]
    bots = bots_copy(game, tmp_path)
    db = tmp_path / "j.sqlite"
    first = cli.run_json("run", game, "--bots", bots, "--seed", "9", "--jobs", "2", "--db", db, *extra, timeout=600)
    n = len(first["standings"])
    per_pair = first["total"] // (n * (n - 1) // 2)
    source = next(p for p in (bots / changed).iterdir() if p.suffix in (".py", ".c"))
    source.write_text(source.read_text() + "\n# changed\n")
    again = cli.run_json("run", game, "--bots", bots, "--db", db, "--jobs", "2", *extra, timeout=600)
    assert again["played"] == per_pair * (n - 1)
    assert again["reused"] == first["total"] - per_pair * (n - 1)
