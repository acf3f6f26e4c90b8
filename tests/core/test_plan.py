"""A run's settings resolved once into a frozen plan (kothkit.playing.settings), and the one factory
that makes the executor from it (kothkit.playing.executor.executor_for): run and verify lay a game's
CPU out by the same rule, so verify replays run's games on run's layout."""

from __future__ import annotations

import os
from pathlib import Path

import attrs
import pytest

from kothkit.bots.folders import load_bots
from kothkit.playing import tournament
from kothkit.playing.settings import Cores, Options, cores_of, game_of, resolve
from kothkit.plugins import get_game

ROOT = Path(__file__).resolve().parents[2]


def test_the_plan_is_frozen_and_holds_the_game_and_its_cpu_layout(tmp_path):
    info = get_game("gomoku_classic12")
    plan = resolve(game_of(info), Options(db=tmp_path / "j.sqlite", jobs=1))
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        plan.jobs = 2  # type: ignore[misc]
    assert plan.game.info is info  # the registration itself (its plugin known)
    assert plan.game.limits == plan.limits and dict(plan.game.rules) == dict(plan.rules)
    assert plan.cores == cores_of(info, 1, plan.limits.pin_cpu)
    n = len(os.sched_getaffinity(0))
    # A game that allows pondering: a core per seat where the machine has two for the job.
    assert plan.cores.per_job == (2 if n >= 2 else 1) and plan.cores.note.startswith("the game allows pondering")
    # Function bots' games take one core a job, whatever the game.
    assert cores_of(info, 1, True, programs=False).per_job == 1


def test_verify_replays_runs_games_on_runs_cpu_layout(tmp_path, monkeypatch):
    from kothkit.playing import verify

    made: list[Cores] = []
    real = tournament.executor_for

    def spy(cores, **kw):  # the real factory, its plan noted
        made.append(cores)
        return real(cores, **kw)

    monkeypatch.setattr(tournament, "executor_for", spy)
    info = get_game("gomoku_classic12")
    bots = load_bots([ROOT / "plugins" / "gomoku_classic12" / "bots" / n for n in ("pywindow", "threat")]).bots
    result = tournament.run_tournament(info, bots, seed=3, journal=tmp_path / "j.sqlite", jobs=1, rounds=1)
    replayed = []
    verify._replay(list(result.schedule), 1, set(), lambda task, record: replayed.append(record))
    assert len(replayed) == result.total == 2
    assert made[0] == made[1] == cores_of(info, 1, info.limits.pin_cpu)
