"""Accounts that cannot half-change, requests that cannot break the server, and what the server
tells its operator: a real ``kothkit serve`` over real HTTP (httpx) and raw sockets.

- The forced first-sign-in form is all or nothing: a taken nickname leaves the first password
  working and says that nothing changed; success says so and returns where the student was going.
- A new password ends every other session of the account (not the one that changed it).
- Sign-in attempts at once are counted before their passwords are checked: at most the throttle's
  count of them is checked.
- A nickname is never another user's login; common passwords and the login are refused.
- Malformed forms and multipart bodies are a 400 with one line in the server's log.
- A client that never finishes its headers is cut off; the state folder is private (0700/0600).
- An access log line per request; the state folder's absolute path at start and from every
  ``kothkit users`` command; a warning when a submissions challenge has no accounts.
"""

from __future__ import annotations

import concurrent.futures as cf
import re
import socket
import stat

import httpx
import pytest

from tests.serve.webserver import (
    Server,
    account,
    challenge,
    client,
    csrf_of,
    kothkit,
    ready_user,
    roster,
    sign_in,
    wait_for,
)

NAME = "acc"


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_accounts_forms_throttle_and_malformed_bodies(tmp_path):
    ch = challenge(tmp_path / NAME)
    state = tmp_path / "state"
    roster(state, tmp_path, ["20240001", "20240002", "20240003", "20240004"])
    server = Server([ch], state, tmp_path, args=("--header-timeout", "2"))
    try:
        # The state's absolute path is said at start; the state is the host's user's alone.
        assert f"state: {state.resolve()}" in server.text
        assert _mode(state) == 0o700
        for f in state.glob("host.sqlite*"):
            assert _mode(f) == 0o600, f
        for f in (state / "journals").glob("*.sqlite*"):
            assert _mode(f) == 0o600, f

        # -- the forced form: a nickname shaped as a login (another student's) changes nothing; the
        # refusal is the same whether that login exists or not (the form tells nobody who is enrolled).
        with client(server) as c:
            r = c.get(f"/c/{NAME}/submit", follow_redirects=False)
            assert r.status_code == 303
            page = c.get("/login", params={"next": f"/c/{NAME}/submit"})
            r = c.post("/login", data={"csrf": csrf_of(page.text), "login": "20240001", "password": "20240001",
                                       "next": f"/c/{NAME}/submit"})
            assert r.status_code == 303 and r.headers["location"] == f"/account?next=/c/{NAME}/submit"
            form = c.get(r.headers["location"])
            assert 'name="next" value="/c/acc/submit"' in form.text
            data = {"csrf": csrf_of(form.text), "old": "20240001", "new": "a-fine-password",
                    "again": "a-fine-password", "nickname": "20240002", "next": f"/c/{NAME}/submit"}
            r = c.post("/account", data=data)
            assert r.status_code == 400 and "look like a login" in r.text and "nothing was changed" in r.text
            # Common passwords and the login itself are refused, and change nothing either.
            for bad in ("12345678", "Password1", "20240001"):
                r = c.post("/account", data={**data, "new": bad, "again": bad, "nickname": "Ada"})
                assert r.status_code == 400 and "nothing was changed" in r.text, bad
        with client(server) as c:  # the first password still works: nothing was half-changed
            r = sign_in(c, "20240001", "20240001")
            assert r.status_code == 303 and r.headers["location"] == "/account"
            form = c.get("/account")
            r = c.post("/account", data={"csrf": csrf_of(form.text), "old": "20240001", "new": "a-fine-password",
                                         "again": "a-fine-password", "nickname": "Ada", "next": f"/c/{NAME}/submit"})
            # Success: back where the student was going, and the page says it was saved (once).
            assert r.status_code == 303 and r.headers["location"] == f"/c/{NAME}/submit"
            page = c.get(r.headers["location"])
            assert page.status_code == 200 and 'id="flash"' in page.text and "Saved" in page.text
            assert 'id="flash"' not in c.get(f"/c/{NAME}/submit").text
        with client(server) as c:  # a later change may not take a nickname nor a login either
            ready_user(c, "20240003", "Bea")
            for taken, why in (("ADA", "taken"), ("20240004", "look like a login")):
                r = account(c, "a-new-password", "", taken)
                assert r.status_code == 400 and why in r.text, taken

        # -- a new password ends the account's other sessions, not the one that changed it.
        with client(server) as one, client(server) as two:
            assert sign_in(one, "20240001", "a-fine-password").status_code == 303
            assert sign_in(two, "20240001", "a-fine-password").status_code == 303
            assert two.get("/account").status_code == 200
            r = account(one, "a-fine-password", "another-fine-password", "Ada")
            assert r.status_code == 303
            assert one.get("/account", follow_redirects=False).status_code == 200
            r = two.get("/account", follow_redirects=False)
            assert r.status_code == 303 and r.headers["location"].startswith("/login")

        # -- 20 wrong passwords at once for one login: at most the throttle's 5 are checked.
        def wrong(k: int) -> int:
            with client(server) as c:
                return sign_in(c, "20240004", f"wrong-{k}").status_code

        with cf.ThreadPoolExecutor(20) as pool:
            codes = list(pool.map(wrong, range(20)))
        assert set(codes) <= {401, 429} and codes.count(401) <= 5 and codes.count(429) >= 15, codes

        # -- malformed bodies: each a 400 (never a 500), one log line each.
        with client(server) as c:
            page = c.get("/login")
            token = csrf_of(page.text)
            bodies = [
                # a file part on the sign-in form (it takes none)
                {"data": {"csrf": token, "login": "x", "password": "y"}, "files": {"login": ("a.txt", b"x")}},
                # a part whose header has no colon
                {"content": b"--zz\r\nbogus header\r\n\r\nabc\r\n--zz--\r\n",
                 "headers": {"content-type": "multipart/form-data; boundary=zz"}},
                # a multipart content type without its boundary
                {"content": b"csrf=1", "headers": {"content-type": "multipart/form-data"}},
                # a part without a name
                {"content": b"--zz\r\nContent-Disposition: form-data\r\n\r\nabc\r\n--zz--\r\n",
                 "headers": {"content-type": "multipart/form-data; boundary=zz"}},
            ]
            before = server.text.count("a malformed form")
            for body in bodies:
                r = c.post("/login", **body)
                assert r.status_code == 400, (body, r.status_code, r.text[-500:])
            with client(server) as ada:
                assert sign_in(ada, "20240001", "another-fine-password").status_code == 303
                page = ada.get(f"/c/{NAME}/submit")
                r = ada.post(f"/c/{NAME}/submit", data={"csrf": csrf_of(page.text), "language": "c11"},
                             files=[("file", ("a.c", b"int main(){}", "text/x-c")),
                                    ("file", ("b.c", b"int main(){}", "text/x-c"))])
                assert r.status_code == 400, r.text[-500:]
            wait_for(lambda: server.text.count("a malformed form") >= before + len(bodies) + 1, 10,
                     message="a log line per malformed body")
            assert "Traceback" not in server.text

        # -- a client that never finishes its headers is cut off.
        host, port = re.match(r"http://([\d.]+):(\d+)", server.url).groups()
        slow = [socket.create_connection((host, int(port)), timeout=30) for _ in range(5)]
        try:
            for s in slow:
                s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")
            for s in slow:
                assert s.recv(100) == b""  # closed by the server (the socket's timeout is the deadline)
        finally:
            for s in slow:
                s.close()
        with client(server) as c:  # and the others are served as before
            assert c.get("/").status_code == 200

        # -- the access log: time, user, method, path, status, milliseconds.
        wait_for(lambda: re.search(r"^\S+Z 20240001 GET /account 200 \d+ms$", server.text, re.M), 10,
                 message="an access log line of a signed-in request")
        assert re.search(r"^\S+Z - POST /login 400 \d+ms$", server.text, re.M)
    finally:
        assert server.stop() == 0, server.text

    # Every `kothkit users` command says which state it works on.
    for args in (("list",), ("reset", "20240002"), ("admin", "20240002"), ("disable", "20240003")):
        r = kothkit("users", *args, "--state", state, cwd=tmp_path)
        assert r.returncode == 0 and f"state: {state.resolve()}" in r.stderr, (args, r.stderr)
    # Run from another folder without --state: an error, and no empty state made there.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    r = kothkit("users", "reset", "20240002", cwd=elsewhere)
    assert r.returncode == 1 and "no host state here" in r.stderr and str(elsewhere / "kothkit-host") in r.stderr
    assert not (elsewhere / "kothkit-host").exists()
    listed = kothkit("users", "list", "--state", state, cwd=tmp_path).stdout
    assert re.search(r"^20240003 +Bea +disabled", listed, re.M), listed
    assert re.search(r"^20240002 .* admin +first password", listed, re.M), listed


def test_a_submissions_challenge_with_no_accounts_is_warned_of(tmp_path):
    ch = challenge(tmp_path / NAME)
    server = Server([ch], tmp_path / "empty-state", tmp_path)
    try:
        assert "has no accounts" in server.text
        with httpx.Client(base_url=server.url, timeout=30) as c:
            assert c.get("/").status_code == 200
    finally:
        assert server.stop() == 0, server.text


def test_attempts_at_once_from_one_address_are_counted_before_their_hashes(tmp_path):
    """The per-address limit holds for attempts at once too (each on another login): the count
    and the attempt are one transaction, taken before the password is checked."""
    import threading

    from kothkit.serve.accounts import TEST_HASHING, AccountError, Accounts, Throttle, Throttled

    accounts = Accounts(tmp_path, throttle=Throttle(per_login=50, per_address=3, window=600.0), hashing=TEST_HASHING)
    try:
        for k in range(12):
            accounts.add(f"u{k}")
        start = threading.Barrier(12)
        results: list[str] = []

        def attempt(k: int) -> None:
            start.wait(30)
            try:
                results.append("checked" if accounts.sign_in(f"u{k}", "wrong", "10.1.2.3") is None else "in")
            except Throttled:
                results.append("throttled")

        threads = [threading.Thread(target=attempt, args=(k,)) for k in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert sorted(results) == ["checked"] * 3 + ["throttled"] * 9, results
        # Another address is not held back by this one's failures; a right password is taken back.
        assert accounts.sign_in("u0", "u0", "10.9.9.9").login == "u0"
        assert accounts.sign_in("u1", "u1", "10.9.9.9").login == "u1"
        assert accounts.sign_in("u2", "wrong", "10.9.9.9") is None
        # A login and a nickname never meet: a new user may not take a nickname as login, nor a login as nickname.
        accounts.change("u3", "u3", "a-fine-password", "zed")
        with pytest.raises(AccountError, match="another user's nickname"):
            accounts.add("ZED")
        with pytest.raises(AccountError, match="is a login"):
            accounts.add("u99", nickname="U4")
        for weak in ("abababab", "qwerty123", "U5"):
            with pytest.raises(AccountError, match="nothing was changed"):
                accounts.change("u5", "u5", weak, "Eve")
        assert accounts.user("u5").must_change and accounts.user("u5").nickname is None
    finally:
        accounts.close()
