"""Journals of the three bundled games from before every seat's result was kept (issue 38): opened
read-only as they are, and opened to write (the three new columns added, empty), their records
read back unchanged; and a two-seat game's record and row are as they were (no seat columns)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from kothkit.bots.folders import load_bots
from kothkit.playing.referee import play_game
from kothkit.playing.tournament import build_bots
from kothkit.plugins import get_game
from kothkit.store.journal import SEAT_COLUMNS, Journal, row_of
from kothkit.store.records import GameTask

PLUGINS = Path(__file__).resolve().parents[2] / "plugins"


@pytest.mark.parametrize(("game", "bots"), [("gomoku_swap2", ("greedy", "scout")),
                                            ("gomoku_classic12", ("pywindow", "threat")),
                                            ("connect4_hidden", ("constant_player", "random_player"))])
def test_an_old_journal_of_each_game_reads_unchanged(tmp_path, game, bots):
    info = get_game(game)
    specs, errors = build_bots(list(load_bots([PLUGINS / game / "bots" / b for b in bots]).bots))
    assert not errors
    task = GameTask(id="g", game=game, players=tuple(specs), seed=3, limits=info.limits)
    record = play_game(task, info=info)
    assert (record.seat_places, record.seat_points, record.seat_verdicts) == (None, None, None)
    row = row_of(record)
    assert row[-3:] == (None, None, None)  # a two-seat game's row: the seat columns empty
    db = tmp_path / "old.sqlite"
    with Journal(db) as j:
        j.add_rows([row])
    with sqlite3.connect(db) as c:  # as a journal of before: without the columns
        for column in SEAT_COLUMNS:
            c.execute(f"ALTER TABLE games DROP COLUMN {column}")
    with Journal(db, readonly=True) as j:
        assert [r.result_key() for r in j.get(["g"])] == [record.result_key()]
        assert next(j.results(["g"]))[:6] == (record.id, record.players, record.winner, record.reason,
                                             record.offender, record.verdict)
        summary = next(j.summaries(["g"]))  # (what the host's Scoreboard keeps)
        assert (summary.winner, summary.seat_places, summary.seat_points) == (record.winner, None, None)
    with Journal(db) as j:  # opened to write: the columns come back, empty
        back = next(j.get(["g"]))
        assert back.result_key() == record.result_key() and back.seat_places is None
    with sqlite3.connect(db) as c:
        have = {r[1] for r in c.execute("PRAGMA table_info(games)")}
        assert set(SEAT_COLUMNS) <= have
