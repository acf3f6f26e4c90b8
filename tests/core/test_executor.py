"""The one executor interface (kothkit.playing.executor.Executor) and its two implementations, put
through the same tests: the local pool (LocalExecutor) and a Dask cluster of real worker
processes (ClusterExecutor on ``local:2``).  A batch comes back in order saying how long it played;
a bot is built on a worker, and a broken one says why; a function runs on a worker with a folder;
a tournament on either plays the games of ``--jobs 1``."""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from kothkit.bots.folders import load_bots
from kothkit.playing.executor import LocalExecutor, build
from kothkit.playing.schedule import Schedule
from kothkit.playing.tournament import run_tournament
from kothkit.plugins import get_game

ROOT = Path(__file__).resolve().parents[2]
C4 = ROOT / "plugins" / "connect4_hidden" / "bots"
INSTANT = ROOT / "benchmarks" / "bots" / "instant"


@pytest.fixture(scope="module", params=["local", "cluster"])
def executor(request):
    if request.param == "local":
        with LocalExecutor(2, pin_cpu=False) as local:
            yield local
        return
    pytest.importorskip("distributed")
    from kothkit.playing.cluster import ClusterExecutor

    with ClusterExecutor("local:2", [get_game("connect4_hidden")], build=build) as cluster:
        yield cluster


def _bots():
    return load_bots([C4 / n for n in ("random_player", "constant_player", "better_random_player")]).bots


def test_a_batch_comes_back_in_order_saying_how_long_it_played(executor):
    info = get_game("connect4_hidden")
    schedule = Schedule(game=info.name, bots=tuple(_bots()), seed=2, rounds=1, limits=info.limits,
                        rules=dict(info.rules))
    tasks = list(schedule)[:3]
    t0 = time.monotonic()
    records, played = executor.play(tasks, False).result(timeout=120)
    waited = time.monotonic() - t0
    # Sized by how long they played: measured from submission, a batch queued behind another
    # would look twice as long, and batches of program bots' games would stay tiny.
    assert [r.id for r in records] == [t.id for t in tasks]
    assert all(r.reason for r in records)
    assert played is not None and 0 < played <= waited
    rows, _ = executor.play(tasks[:1], True).result(timeout=120)
    assert [row[0] for row in rows] == [tasks[0].id]


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_a_bot_is_built_on_a_worker_and_a_broken_one_says_why(executor, tmp_path):
    good = tmp_path / "good"
    shutil.copytree(INSTANT, good, ignore=shutil.ignore_patterns("bot", ".kothkit-build"))
    ok, why, took = executor.build(str(good), 60.0).result(timeout=120)
    assert (ok, why) == (True, "") and took > 0
    broken = tmp_path / "broken"
    shutil.copytree(good, broken, ignore=shutil.ignore_patterns("bot", ".kothkit-build"))
    (broken / "bot.c").write_text("int main( { return 0; }\n")
    ok, why, _ = executor.build(str(broken), 60.0).result(timeout=120)
    assert not ok and "error" in why and str(broken) not in why


def test_a_function_runs_on_a_worker_with_the_folder(executor, tmp_path):
    (tmp_path / "brain").mkdir()
    (tmp_path / "brain" / "bot.toml").write_text('name = "brain"\ncommand = ["true"]\n')
    assert "bot.toml" in executor.run_in(str(tmp_path / "brain"), os.listdir).result(timeout=120)


def _games(db: Path) -> list[tuple]:
    with sqlite3.connect(db) as c:
        return sorted(c.execute("SELECT id, players, winner, reason FROM games"))


def test_a_tournament_on_either_plays_the_games_of_jobs_1(executor, tmp_path):
    info = get_game("connect4_hidden")
    alone = run_tournament(info, _bots(), seed=9, journal=tmp_path / "one.sqlite", rounds=2)
    there = run_tournament(info, _bots(), seed=9, journal=tmp_path / "there.sqlite", rounds=2, cluster=executor)
    assert there.played == alone.played == 3 * 2 * 2
    assert [(s.bot, s.wins, s.draws, s.losses) for s in there.standings] == \
        [(s.bot, s.wins, s.draws, s.losses) for s in alone.standings]
    assert _games(tmp_path / "there.sqlite") == _games(tmp_path / "one.sqlite")
    assert executor.capacity() == 2 and not executor.refused()
