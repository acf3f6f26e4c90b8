"""Backups and upgrades of a running ``kothkit serve`` as docs/hosting.md says to do them (issue 29,
item 6), on a real server with games in flight: the state's databases copied with SQLite's online
backup while the host writes (and the rest of the folder as files) make a state that serves the
same site (accounts, the same public bot ids, the games stored), and finishes the work; the server
stopped with SIGTERM in the middle of its games (as for an upgrade) and started again counts every
game once."""

from __future__ import annotations

import os
import re
import shutil
import signal
import sqlite3
from contextlib import closing
from pathlib import Path

from tests.serve.webserver import Server, brain, challenge, client, roster, sign_in, submit, user, wait_for

NAME = "g12"
LOGINS = ("20240001", "20240002")


def online_backup(state: Path, to: Path) -> None:
    """The state's SQLite databases through SQLite's online backup (a consistent copy while the host
    writes: what ``sqlite3 DB ".backup COPY"`` does), then every other file as it is."""
    shutil.copytree(state, to, ignore=shutil.ignore_patterns("*.sqlite", "*.sqlite-wal", "*.sqlite-shm"))
    for db in state.rglob("*.sqlite"):
        out = to / db.relative_to(state)
        out.parent.mkdir(parents=True, exist_ok=True)
        with closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)) as src, \
                closing(sqlite3.connect(out)) as dst:
            src.backup(dst)


def _games(state: Path) -> int:
    with closing(sqlite3.connect(f"file:{state / 'journals' / f'{NAME}.sqlite'}?mode=ro", uri=True)) as db:
        return int(db.execute("SELECT count(*) FROM games").fetchone()[0])


def _finished(server: Server) -> dict[str, int]:
    """The public bot ids with their games, once both brains are done."""
    with client(server) as c:
        wait_for(lambda: re.findall(r'data-status="([a-z-]+)"', c.get(f"/c/{NAME}/submissions").text)
                 == ["done", "done"], 240, every=0.3, message="both brains done")
        return {r["bot"]: r["games"] for r in c.get(f"/c/{NAME}/standings.json").json()["rows"]}


def test_an_online_backup_and_an_upgrade_with_games_in_flight(tmp_path):
    ch = challenge(tmp_path / NAME)
    state, backup = tmp_path / "state", tmp_path / "backup"
    roster(state, tmp_path, list(LOGINS))
    server = Server([ch], state, tmp_path)
    try:
        for login in LOGINS:
            with user(server, login, f"nick-{login}") as c:
                # 40 ms a move: each game lasts a couple of seconds, in flight while the copy is made.
                assert submit(c, NAME, brain(login, delay_ms=40)).status_code == 303
        with client(server) as c:
            wait_for(lambda: c.get(f"/c/{NAME}/standings.json").json()["playing"] > 0, 120, every=0.1,
                     message="a game in flight")
        online_backup(state, backup)
        # An upgrade: SIGTERM with the games in flight, then the same state started again.
        os.kill(server.proc.pid, signal.SIGTERM)
        assert server.stop() == 0, server.text
        assert "stopped" in server.text
    finally:
        server.stop(kill=True)
    server = Server([ch], state, tmp_path)
    try:
        upgraded = _finished(server)
        assert sorted(upgraded.values()) == [2, 2] and _games(state) == 2
    finally:
        assert server.stop() == 0, server.text
    # The backup, served as a state of its own: the same accounts and bot ids, and the work done once.
    server = Server([ch], backup, tmp_path)
    try:
        restored = _finished(server)
        assert restored == upgraded and _games(backup) == 2
        with client(server) as c:
            assert sign_in(c, LOGINS[0], "a-new-password").status_code == 303
    finally:
        assert server.stop() == 0, server.text
