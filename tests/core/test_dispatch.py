"""Dispatching games in batches: fast games go a growing batch at a time, each a run of the
schedule, and the standings a tournament tallies agree with its journal."""

from __future__ import annotations

from pathlib import Path

import pytest

from kothkit.bots.folders import load_bots
from kothkit.store.journal import Journal
from kothkit.plugins import get_game
from kothkit.playing.schedule import Schedule
from kothkit.playing.settings import Cores
from kothkit.scoring import standings
from kothkit.playing.tournament import dispatch, run_tournament

ROOT = Path(__file__).resolve().parents[2]
C4 = ROOT / "plugins" / "connect4_hidden" / "bots"
EXAMPLES = ("random_player", "constant_player", "better_random_player", "better_constant_player")


def c4_bots():
    return load_bots([C4 / n for n in EXAMPLES]).bots


def _dispatched(seed: int, rounds: int, jobs: int, batch: int) -> tuple[list, list[list]]:
    """The schedule's tasks, and the batches dispatch handed back as (task, record) pairs, in order."""
    info = get_game("connect4_hidden")
    schedule = Schedule(game=info.name, bots=tuple(c4_bots()), seed=seed, rounds=rounds, limits=info.limits,
                        rules=dict(info.rules), trusted=True)
    tasks = list(schedule)
    batches: list[list] = []
    dispatch(iter(tasks), cores=Cores(jobs, pin=False), stateful=set(), batch=batch,
             on_done=lambda picked, records: batches.append(list(zip(picked, records))))
    # Each batch is a run of consecutive games (two may finish in either order).
    batches.sort(key=lambda b: b[0][0].index)
    assert [t.id for b in batches for t, _ in b] == [t.id for t in tasks]
    assert all(r.id == t.id and r.reason for b in batches for t, r in b)
    return tasks, batches


def test_function_games_go_in_growing_batches_in_schedule_order():
    _tasks, batches = _dispatched(seed=4, rounds=40, jobs=1, batch=64)
    sizes = [len(b) for b in batches]
    assert sizes[0] == 8 and max(sizes) > 8 and max(sizes) <= 64, sizes


def test_tallied_standings_agree_with_the_journal_also_after_reuse(tmp_path):
    info = get_game("connect4_hidden")
    bots = c4_bots()
    db = tmp_path / "j.sqlite"
    first = run_tournament(info, bots[:3], seed=8, journal=db, rounds=30, trusted=True)
    # A fourth bot: the first three's games are found in the journal, the new ones played.
    second = run_tournament(info, bots, seed=8, journal=db, rounds=30, trusted=True)
    assert first.played == first.total and second.reused == first.total
    assert second.played == second.total - first.total
    with Journal(db) as j:
        stored = list(j.results(list(second.schedule.ids())))
    assert len(stored) == second.total
    again = standings(info.scoring, [b.name for b in bots], stored)
    assert second.standings == again


def test_the_last_games_go_in_smaller_batches_shared_among_workers():
    _tasks, batches = _dispatched(seed=5, rounds=60, jobs=2, batch=64)
    sizes = [len(b) for b in batches]
    # Once the schedule is all taken, each batch is at most a quarter of what is left (two workers,
    # two batches each), so the run ends on batches far smaller than the largest.
    assert max(sizes) > 8 and sizes[-1] <= max(1, max(sizes) // 4), sizes


def _always_dies(tasks, cpu=None, rows=False):
    """A worker-side fault that no replay cures: the worker ends on every batch."""
    import os

    os._exit(7)


def test_a_worker_that_dies_again_on_the_replay_is_reported_with_its_games(monkeypatch):
    # No bot can do this (a replayed bot is isolated, and its host is jailed): the pool's
    # workers are forked from this process, so they run this play_batch, which always dies.
    import kothkit.playing.executor as executor
    import kothkit.playing.dispatcher as tournament

    info = get_game("connect4_hidden")
    schedule = Schedule(game=info.name, bots=tuple(c4_bots()), seed=1, rounds=1, limits=info.limits,
                        rules=dict(info.rules), trusted=True)
    monkeypatch.setattr(executor, "play_batch", _always_dies)
    done = []
    with pytest.raises(tournament.WorkerLost, match="a worker died twice while playing games #") as lost:
        dispatch(iter(schedule), cores=Cores(2, pin=False), stateful=set(), batch=4,
                 on_done=lambda picked, records: done.append(picked))
    assert not done and lost.value.tasks and all(not t.trusted for t in lost.value.tasks)
