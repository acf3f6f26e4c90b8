"""The journal's write-ahead log is checkpointed by a thread of its own, which the journal's
close stops: games stay readable and no thread is left behind."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import kothkit.journal as journal
from kothkit.bots import load_bots
from kothkit.journal import Journal, row_of
from kothkit.plugins import get_game
from kothkit.referee import play_game
from kothkit.schedule import Schedule

ROOT = Path(__file__).resolve().parents[2]
C4 = ROOT / "plugins" / "connect4_hidden" / "bots"


def _checkpointers() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "kothkit-journal-checkpoint"]


def test_checkpoints_run_beside_the_writer_and_stop_with_the_journal(tmp_path, monkeypatch):
    monkeypatch.setattr(journal, "CHECKPOINT_EVERY", 0.0)  # every batch asks for one
    info = get_game("connect4_hidden")
    bots = load_bots([C4 / "constant_player", C4 / "random_player"]).bots
    schedule = Schedule(game=info.name, bots=tuple(bots), seed=3, rounds=20, limits=info.limits,
                        rules=dict(info.rules), trusted=True)
    rows = [row_of(play_game(t)) for t in schedule]
    db = tmp_path / "j.sqlite"
    before = _checkpointers()
    with Journal(db) as j:
        empty = db.stat().st_size
        for i in range(0, len(rows), 10):
            j.add_rows(rows[i : i + 10])
        assert len(_checkpointers()) == len(before) + 1
        # The rows reach the database file itself (not only the log) while the journal is open.
        deadline = time.monotonic() + 30
        while db.stat().st_size <= empty and time.monotonic() < deadline:
            j.add_rows(rows[:1])  # the same game again: asks for another checkpoint
            time.sleep(0.05)
        assert db.stat().st_size > empty
    assert _checkpointers() == before
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*) FROM games").fetchone()[0] == len(rows)
