"""The journal's write-ahead log is checkpointed by a thread of its own, which the journal's
close stops: games stay readable and no thread is left behind."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import kothkit.store.journal as journal
from kothkit.bots.folders import load_bots
from kothkit.store.journal import Journal, row_of
from kothkit.plugins import get_game
from kothkit.playing.referee import play_game
from kothkit.playing.schedule import Schedule

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


def _made_journal(tmp_path: Path, cli) -> bytes:
    """The bytes of a real journal of a small connect4 tournament."""
    db = tmp_path / "made.sqlite"
    cli("run", "connect4_hidden", "--rounds", "20", "--seed", "1", "--jobs", "1", "--db", db, "-q", check=True)
    return db.read_bytes()


def test_a_corrupt_journal_is_one_line_naming_it_and_is_left_as_it_was(cli, tmp_path):
    import os

    good = _made_journal(tmp_path, cli)
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE scores (who TEXT, points INTEGER)")
    bad = {"truncated": good[: len(good) // 2], "random": os.urandom(40_000), "other": other.read_bytes()}
    for name, data in bad.items():
        path = tmp_path / f"{name}.sqlite"
        path.write_bytes(data)
        for args in (["run", "connect4_hidden", "--rounds", "1", "--seed", "1", "--db", path, "-q"],
                     ["run", "connect4_hidden", "--rounds", "1", "--db", path, "-q"],  # the seed read from it
                     ["verify", path]):
            r = cli(*args)
            lines = r.stderr.strip().splitlines()
            assert r.returncode == 1 and len(lines) == 1 and str(path) in lines[0], (name, args, r.stderr)
            assert path.read_bytes() == data, name
            assert sorted(p.name for p in tmp_path.glob(f"{name}.sqlite*")) == [f"{name}.sqlite"]


def test_the_write_ahead_log_is_emptied_again_and_again_during_a_long_run(tmp_path):
    # A real long connect4 run (trusted: thousands of games a second) with a small bound: its log
    # starts over again and again.  Watched until it has, however long this machine takes (the
    # bound itself, in commits, is the next test's).
    import os
    import signal
    import subprocess
    import sys

    db = tmp_path / "long.sqlite"
    wal = tmp_path / "long.sqlite-wal"
    limit = 512 * 1024
    judge = subprocess.Popen(
        [sys.executable, "-m", "kothkit", "run", "connect4_hidden", "--rounds", "100000000", "--trusted",
         "--jobs", "2", "--seed", "3", "--db", str(db), "-q"], cwd=tmp_path, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True,
        env={**os.environ, "KOTHKIT_WAL_LIMIT_MB": str(limit / 1024 / 1024)})
    passed, emptied, last = 0, 0, 0
    try:
        deadline = time.monotonic() + 180  # nothing hangs; no figure of speed
        while emptied < 3 and judge.poll() is None and time.monotonic() < deadline:
            try:
                size = wal.stat().st_size
            except OSError:
                size = 0
            passed += size > limit
            emptied += passed > 0 and size < last // 2  # the log starting over, once past its limit
            last = size
            time.sleep(0.01)
    finally:
        os.killpg(judge.pid, signal.SIGINT)
        judge.wait(timeout=30)
    assert emptied >= 3, (passed, emptied, judge.stderr.read() if judge.stderr else "")
    assert journal.stored_count(db) > 0


def test_the_write_ahead_log_stays_within_twice_its_limit_and_a_commit_with_no_checkpointer(tmp_path, monkeypatch):
    # The checkpointer's thread looks at the log once an hour and is never asked to: as on a
    # machine too loaded to give it a turn.  The bound holds all the same, counted in commits:
    # after any commit the log is at most twice its limit plus what one commit adds.
    import hashlib

    limit = 256 * 1024
    monkeypatch.setattr(journal, "WAL_LIMIT", limit)
    monkeypatch.setattr(journal, "WAL_LOOK_EVERY", 3600.0)
    monkeypatch.setattr(journal, "CHECKPOINT_EVERY", 3600.0)
    info = get_game("connect4_hidden")
    bots = load_bots([C4 / "constant_player", C4 / "random_player"]).bots
    schedule = Schedule(game=info.name, bots=tuple(bots), seed=3, rounds=10, limits=info.limits,
                        rules=dict(info.rules), trusted=True)
    played = [row_of(play_game(t)) for t in schedule]
    db = tmp_path / "j.sqlite"
    wal = Path(f"{db}-wal")
    sizes = [0]
    growth = 0  # the most one commit added to the log
    with Journal(db) as j:
        for n in range(300):
            batch = [r._replace(id=hashlib.sha256(f"{n}/{i}".encode()).hexdigest()[:32])
                     for i, r in enumerate(played * 3)]
            j.add_rows(batch)
            size = wal.stat().st_size if wal.exists() else 0
            if size >= sizes[-1]:
                growth = max(growth, size - sizes[-1])
            sizes.append(size)
        assert journal.stored_count(db) == 300 * len(played) * 3
    starts = sum(b < a for a, b in zip(sizes, sizes[1:]))
    assert starts >= 3, sizes  # emptied by the judge's own thread, again and again
    assert max(sizes) <= 2 * limit + growth, (max(sizes), growth)


def test_tasks_records_and_rows_cross_a_pickle_unchanged():
    # Their __reduce__ pickles plain tuples of fields (for speed); the constructors on the other
    # side must put every field back where it was.
    import pickle

    from kothkit.store.journal import GameRow

    info = get_game("connect4_hidden")
    bots = load_bots([C4 / "constant_player", C4 / "random_player"]).bots
    task = next(iter(Schedule(game=info.name, bots=tuple(bots), seed=5, rounds=1, limits=info.limits,
                              rules=dict(info.rules), trusted=True)))
    record = play_game(task)
    assert record.moves
    assert pickle.loads(pickle.dumps(task)) == task
    back = pickle.loads(pickle.dumps(record))
    assert back == record and back.result_key() == record.result_key()
    row = pickle.loads(pickle.dumps(row_of(record)))
    assert type(row) is GameRow and row == row_of(record, row.finished_at)


def test_moves_are_written_as_json_writes_them_whatever_their_values():
    # The moves' cache of journal.row_of: what it writes is json.dumps's text, for moves it
    # keeps and for those it must not (a bool reply equal to 1, -0.0 equal to 0.0, NaN, text).
    import json
    import math

    from kothkit.store.records import Move

    nan = math.nan
    games = [
        [Move(0, 3, 0.001), Move(1, 4, 0.012), Move(0, 3, 0.001)],
        [Move(0, 1, 0.001), Move(1, True, 0.001)],
        [Move(0, 1, 0.0), Move(1, 1, -0.0), Move(0, 1, 0.0)],
        [Move(0, 2, nan), Move(1, 2, nan), Move(0, 2, math.inf)],
        [Move(0, "(7,7)", 0.25), Move(1, [1, 2], 0.25), Move(0, 7, 1.0)],
        [Move(0, 10**30, 2.5e-05), Move(1, -1, 12345.678)],
        [],
    ]
    for _ in range(2):  # the second time from the cache
        for moves in games:
            assert journal._moves_json(tuple(moves)) == json.dumps(moves)
