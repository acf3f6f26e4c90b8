"""``kothkit users`` and the accounts' store: a roster from a CSV (a wrong row named by its line,
nothing added then), a password reset, an admin; what the database keeps (Argon2 hashes at pwdlib's
default costs, hashes of session cookies, never the secrets themselves); the tests' cheap costs,
kept by a state folder made with them and used by the commands run on it."""

from __future__ import annotations

import re
import sqlite3
import time

import pytest

from kothkit.serve.accounts import TEST_HASHING, AccountError, Accounts, Hashing, Throttle, Throttled
from tests.serve.webserver import kothkit


def test_roster_from_csv_reset_and_admin(tmp_path):
    state = tmp_path / "state"
    (tmp_path / "roster.csv").write_text("student_id,nickname\n20230001,\n20230002,Bo\n\n20230003,\n")
    r = kothkit("users", "add", "roster.csv", "--state", state, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "added 3 users" in r.stdout
    again = kothkit("users", "add", "roster.csv", "--state", state, cwd=tmp_path)
    assert again.returncode == 0 and "added 0 users" in again.stdout
    assert "roster.csv:2: 20230001 exists already" in again.stderr

    (tmp_path / "bad.csv").write_text("login\n20230009\nno way/../x\n")
    bad = kothkit("users", "add", "bad.csv", "--state", state, cwd=tmp_path)
    assert bad.returncode == 1 and "bad.csv:3:" in bad.stderr and "login" in bad.stderr
    (tmp_path / "nohead.csv").write_text("name\nx\n")
    r = kothkit("users", "add", "nohead.csv", "--state", state, cwd=tmp_path)
    assert r.returncode == 1 and "nohead.csv:1:" in r.stderr

    listed = kothkit("users", "list", "--state", state, cwd=tmp_path).stdout
    assert "20230009" not in listed  # nothing of the wrong file was added
    assert re.search(r"^20230002 +Bo ", listed, re.M) and listed.count("first password") == 3

    assert kothkit("users", "admin", "20230002", "--state", state, cwd=tmp_path).returncode == 0
    assert kothkit("users", "reset", "20230001", "--password", "temporary-1", "--state", state, cwd=tmp_path).returncode == 0
    missing = kothkit("users", "reset", "nobody", "--state", state, cwd=tmp_path)
    assert missing.returncode == 1 and "no user 'nobody'" in missing.stderr

    accounts = Accounts(state)
    try:
        assert accounts.user("20230002").admin
        assert accounts.sign_in("20230001", "20230001", "a") is None
        assert accounts.sign_in("20230001", "temporary-1", "a").must_change
        assert accounts.sign_in("20230003", "20230003", "a").login == "20230003"
    finally:
        accounts.close()
    # The database holds no password and no session cookie, only their hashes.
    db = sqlite3.connect(state / "host.sqlite")
    hashes = [h for (h,) in db.execute("SELECT hash FROM users")]
    # A state made by the commands hashes at the default costs (tests elsewhere use cheaper ones).
    assert Hashing() == Hashing(time_cost=3, memory_cost=65536, parallelism=4)
    assert hashes and all(h.startswith("$argon2id$v=19$m=65536,t=3,p=4$") for h in hashes)
    assert not any("temporary-1" in h or "20230003" in h for h in hashes)
    db.close()


def test_a_state_made_with_cheap_hashing_keeps_it_for_the_commands(tmp_path):
    state = tmp_path / "state"
    Accounts(state, hashing=TEST_HASHING).close()
    (tmp_path / "roster.csv").write_text("login\nann\n")
    assert kothkit("users", "add", "roster.csv", "--state", state, cwd=tmp_path).returncode == 0
    accounts = Accounts(state)
    try:
        assert accounts.hashing == TEST_HASHING
        accounts.add("ben")
        assert accounts.sign_in("ann", "ann", "a").login == "ann"
    finally:
        accounts.close()
    cheap = "$argon2id$v=19$m=8,t=1,p=1$"
    db = sqlite3.connect(state / "host.sqlite")
    assert [h[:len(cheap)] for (h,) in db.execute("SELECT hash FROM users ORDER BY login")] == [cheap, cheap]
    db.close()
    # Given the defaults, the folder hashes at the defaults again; an older cheap hash still verifies.
    accounts = Accounts(state, hashing=Hashing())
    accounts.close()
    accounts = Accounts(state)
    try:
        assert accounts.hashing == Hashing()
        assert accounts.sign_in("ben", "ben", "a").login == "ben"
    finally:
        accounts.close()


def test_sessions_nicknames_and_throttle(tmp_path):
    accounts = Accounts(tmp_path, throttle=Throttle(per_login=2, per_address=3, window=120.0), hashing=TEST_HASHING)
    try:
        accounts.add("ann")
        accounts.add("ben")
        token = accounts.open_session("ann")
        s = accounts.session(token)
        assert s.user.login == "ann" and len(s.csrf) >= 40
        assert accounts.session(token[:-1] + ("A" if token[-1] != "A" else "B")) is None
        stored = sqlite3.connect(tmp_path / "host.sqlite").execute("SELECT token_hash FROM sessions").fetchall()
        assert stored and token not in stored[0][0]
        with pytest.raises(AccountError, match="not your login"):
            accounts.change("ann", "ann", "ann", "Ann")
        with pytest.raises(AccountError, match="current password is wrong"):
            accounts.change("ann", "wrong", "a-good-password", "Ann")
        accounts.change("ann", "ann", "a-good-password", "  Ann\x00\u202e  Smith ")
        assert accounts.user("ann").nickname == "Ann Smith" and not accounts.user("ann").must_change
        accounts.change("ben", "ben", "another-password", "Ben")
        with pytest.raises(AccountError, match="taken"):
            accounts.change("ben", "another-password", "", "ANN SMITH")
        # A reset ends the user's sessions and asks for a new password again.
        accounts.reset_password("ann")
        assert accounts.session(token) is None and accounts.user("ann").must_change
        # Two failures lock the login for the window, the right password too; then it opens again.
        assert accounts.sign_in("ben", "x", "10.0.0.1") is None
        assert accounts.sign_in("ben", "y", "10.0.0.2") is None
        with pytest.raises(Throttled) as e:
            accounts.sign_in("ben", "another-password", "10.0.0.3")
        assert 60 < e.value.retry_after <= 120.0
        # A third failure from 10.0.0.1 (of any login) locks that address for every login.
        assert accounts.sign_in("ann", "x", "10.0.0.1") is None
        assert accounts.sign_in("nobody", "y", "10.0.0.1") is None
        with pytest.raises(Throttled):
            accounts.sign_in("ann", "ann", "10.0.0.1")
        assert accounts.sign_in("ann", "ann", "10.0.0.4").login == "ann"
    finally:
        accounts.close()
    # Once the failures leave the window, the login opens again.
    accounts = Accounts(tmp_path, throttle=Throttle(per_login=1, per_address=9, window=1.0))
    assert accounts.hashing == TEST_HASHING  # (kept by the folder)
    try:
        time.sleep(1.1)  # the first half's failures (same database) leave this 1 s window first
        assert accounts.sign_in("ben", "x", "10.0.0.1") is None
        with pytest.raises(Throttled):
            accounts.sign_in("ben", "another-password", "10.0.0.1")
        time.sleep(1.1)
        assert accounts.sign_in("ben", "another-password", "10.0.0.1").login == "ben"
    finally:
        accounts.close()
