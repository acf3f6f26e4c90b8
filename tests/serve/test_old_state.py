"""A state folder and a journal from before this version's schema (the ``users.roster`` column, the
journal's ``kept`` table) are upgraded when opened, and keep what they held."""

from __future__ import annotations

import sqlite3
from contextlib import closing

from kothkit.playing.keeping import Records
from kothkit.serve.accounts import DB_FILE, TEST_HASHING, Accounts
from kothkit.store.journal import Journal


def test_a_host_database_without_the_roster_column(tmp_path):
    accounts = Accounts(tmp_path, hashing=TEST_HASHING)
    accounts.add("20240001", nickname="ann")
    accounts.close()
    with closing(sqlite3.connect(tmp_path / DB_FILE)) as db:  # (as the version before made it)
        db.execute("ALTER TABLE users DROP COLUMN roster")
        assert "roster" not in {r[1] for r in db.execute("PRAGMA table_info(users)")}
    accounts = Accounts(tmp_path)
    try:
        assert accounts.roster() == {"20240001": {}}
        assert accounts.sign_in("20240001", "20240001", "192.0.2.1") is not None
        added, skipped = accounts.add_csv(tmp_path / "roster.csv", "login,name\n20240002,Bo\n20240001,Ann\n")
        assert [u.login for u in added] == ["20240002"] and len(skipped) == 1
        assert accounts.roster() == {"20240001": {}, "20240002": {"name": "Bo"}}
    finally:
        accounts.close()


def test_a_journal_without_the_kept_table(tmp_path):
    path = tmp_path / "g.sqlite"
    Journal(path).close()
    with closing(sqlite3.connect(path)) as db:  # (as the version before made it)
        db.execute("DROP TABLE kept")
        db.commit()
    with Journal(path, readonly=True) as j:  # (kothkit verify: reads only)
        assert j.kept("bots/a") is None
        assert Records(j, path).identify([], (), {}) == []
    with Journal(path) as j:
        assert j.kept("bots/a") is None
        j.keep({"bots/a": '{"given": {}, "left": {}, "identity": "x"}'})
    with Journal(path, readonly=True) as j:
        assert j.kept("bots/a") == '{"given": {}, "left": {}, "identity": "x"}'
