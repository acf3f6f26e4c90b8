"""lowbid through the core's referee, with real processes: the bundled bots (the C program built by
the jailed build, a Python program, a Python function) at one table, and misbehaving bots that
leave their game alone while the others play it to the end."""

from __future__ import annotations

from pathlib import Path

import pytest

from kothkit.bots.folders import load_bots
from kothkit.playing.referee import play_game
from kothkit.playing.schedule import game_id, settings_of
from kothkit.playing.tournament import build_bots
from kothkit.store.records import GameTask

from kothkit_lowbid.plugin import INFO

BOTS = Path(__file__).resolve().parents[1] / "bots" / "lowbid"


@pytest.fixture(scope="module")
def bots():
    specs, errors = build_bots(list(load_bots([INFO.bots, BOTS]).bots))
    assert not errors
    return {b.name: b for b in specs}


def play(bots, names, rounds=4, seed=3):
    rules = {**INFO.rules, "rounds": rounds}
    players = tuple(bots[n] for n in names)
    task = GameTask(id=game_id("lowbid", settings_of(INFO.limits, rules), players, ("test", seed)), game="lowbid",
                    players=players, seed=seed, limits=INFO.limits, rules=rules)
    return play_game(task, info=INFO)


def test_the_bundled_bots_in_three_languages_play_a_game(bots):
    assert {n: bots[n].kind for n in ("dodger", "one", "tracker")} == {
        "dodger": "process", "one": "process", "tracker": "function"}
    r = play(bots, ("dodger", "one", "tracker"))
    assert r.verdict is None and r.seat_verdicts == (None, None, None)
    assert len(r.moves) == 12 and [m.seat for m in r.moves[:3]] == [0, 1, 2]
    assert all(m.reply in ("1", 1) for m in r.moves if m.seat == 1)  # one bids 1, always
    assert sum(r.seat_points) <= 4 and r.seat_places == tuple(1 + sum(q > p for q in r.seat_points)
                                                              for p in r.seat_points)
    assert r.reason.startswith("4 rounds; points ")


def test_a_bot_that_crashes_in_round_3_leaves_alone_and_the_others_finish(bots):
    r = play(bots, ("dodger", "quitter", "one", "tracker"), rounds=5)
    assert r.seat_verdicts == (None, "crash", None, None) and r.offender == "quitter"
    assert r.seat_places[1] == 4 and r.seat_points[1] == 0
    assert sum(1 for m in r.moves if m.seat == 1) == 2  # its two bids, then nothing
    assert sum(1 for m in r.moves if m.seat != 1) == 15  # the other three bid all five rounds


def test_an_invalid_bid_costs_its_bot_alone(bots):
    r = play(bots, ("babbler", "one", "dodger"), rounds=3)
    assert r.seat_verdicts == ("invalid-reply", None, None)
    assert "invalid-reply: expected a bid, a whole number 1-10, got 'seven'" in r.logs["babbler"]
    assert r.seat_places[0] == 3 and sum(1 for m in r.moves if m.seat != 0) == 6


@pytest.mark.parametrize("name", ["dodger", "one", "spoiler", "tracker"])
def test_the_bundled_bots_pass_the_bot_check_and_its_scenarios(name):
    from kothkit.testing import check_bot

    report = check_bot(INFO, INFO.bots / name, quick=True)
    assert report.ok, [f.text for r in report.runs for f in r.findings]
    assert [(r.title, r.replies) for r in report.runs[:3]] == [
        ("first bid (as seat 1 of 3)", 1), ("last round's bids (as seat 0 of 3)", 2),
        ("another max bid (as seat 2 of 3)", 3)]  # (each scenario says the table it was played at)
