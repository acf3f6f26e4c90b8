"""The account form's current password is a password check like a sign-in's (issue 28, item 3),
on real SQLite (the host's ``Accounts``) and over HTTP: counted by the sign-in throttle before its
hash is checked, so that a session stolen for a while cannot try passwords there faster than at
the sign-in form; and a form whose session was ended meanwhile (another form changed the password)
writes nothing."""

from __future__ import annotations

import concurrent.futures as cf

import pytest

from kothkit.serve.accounts import TEST_HASHING, AccountError, Accounts, Throttle, Throttled
from tests.serve.webserver import Server, challenge, client, csrf_of, roster, sign_in, user


def test_wrong_current_passwords_are_throttled_before_their_hashes(tmp_path):
    accounts = Accounts(tmp_path, throttle=Throttle(per_login=5, per_address=30, window=600.0), hashing=TEST_HASHING)
    try:
        accounts.add("ann")
        accounts.change("ann", "ann", "a-fine-password", "Ann")

        def wrong(k: int) -> str:
            try:
                accounts.change("ann", f"wrong-{k}", "", "Ann", address="10.0.0.1")
            except Throttled:
                return "throttled"
            except AccountError as e:
                assert "current password is wrong" in str(e)
                return "checked"
            return "changed"

        with cf.ThreadPoolExecutor(20) as pool:
            results = sorted(pool.map(wrong, range(20)))
        assert results == ["checked"] * 5 + ["throttled"] * 15, results
        # The right password too is refused now, for the form and for the sign-in alike.
        with pytest.raises(Throttled):
            accounts.change("ann", "a-fine-password", "", "Annie")
        with pytest.raises(Throttled):
            accounts.sign_in("ann", "a-fine-password", "10.0.0.2")
        assert accounts.user("ann").nickname == "Ann"
    finally:
        accounts.close()


def test_a_form_of_a_session_ended_meanwhile_changes_nothing(tmp_path):
    accounts = Accounts(tmp_path, hashing=TEST_HASHING)
    try:
        accounts.add("bea")
        accounts.change("bea", "bea", "first-fine-password", "Bea")
        one, two = accounts.open_session("bea"), accounts.open_session("bea")
        # The form of session one sets a new password: session two ends.
        accounts.change("bea", "first-fine-password", "second-fine-password", "Bea", keep_session=one)
        assert accounts.session(two) is None and accounts.session(one) is not None
        # A form of session two (sent before it ended) cannot write, even with the right password.
        with pytest.raises(AccountError, match="nothing was changed"):
            accounts.change("bea", "second-fine-password", "third-fine-password", "Mallory", keep_session=two)
        assert accounts.user("bea").nickname == "Bea"
        assert accounts.sign_in("bea", "second-fine-password", "10.0.0.3") is not None
        # A right current password is taken back from the throttle's count.
        for k in range(8):
            accounts.change("bea", "second-fine-password", "", f"Bea{k}", keep_session=one, address="10.0.0.3")
        assert accounts.user("bea").nickname == "Bea7"
    finally:
        accounts.close()


def test_a_nickname_is_never_the_login_itself(tmp_path):
    """A login (a student number) is private, a nickname is on every page: a student who types
    their own login as nickname is refused, and so is a roster that gives one."""
    accounts = Accounts(tmp_path, hashing=TEST_HASHING)
    try:
        accounts.add("20240009")
        with pytest.raises(AccountError, match="not your login .nothing was changed"):
            accounts.change("20240009", "20240009", "a-fine-password", " 20240009 ")
        assert accounts.user("20240009").must_change and accounts.sign_in("20240009", "20240009", "10.0.0.4")
        with pytest.raises(AccountError, match="is the login itself"):
            accounts.add("20240010", nickname="20240010")
        assert accounts.user("20240010") is None
        # A login of letters is refused in another case too: "s1234567" would publish "S1234567".
        accounts.add("S1234567")
        with pytest.raises(AccountError, match="not your login .nothing was changed"):
            accounts.change("S1234567", "S1234567", "a-fine-password", "s1234567")
        with pytest.raises(AccountError, match="is the login itself"):
            accounts.add("js2024", nickname="JS2024")
    finally:
        accounts.close()


def test_the_account_form_answers_429_after_too_many_wrong_current_passwords(tmp_path):
    state = tmp_path / "state"
    roster(state, tmp_path, ["20240007"])
    server = Server([challenge(tmp_path / "acc")], state, tmp_path)
    try:
        with user(server, "20240007", "Gus") as gus:
            codes = []
            for k in range(6):
                form = gus.get("/account").text
                r = gus.post("/account", data={"csrf": csrf_of(form), "old": f"wrong-{k}", "new": "", "again": "",
                                               "nickname": "Gus2"})
                codes.append(r.status_code)
            assert codes == [400] * 5 + [429], codes
            assert "too many failed sign-ins" in r.text and 'name="nickname"' in r.text
            assert int(r.headers["retry-after"]) > 0
        with client(server) as c:
            assert sign_in(c, "20240007", "a-new-password").status_code == 429
    finally:
        assert server.stop() == 0, server.text
