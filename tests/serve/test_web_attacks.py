"""``kothkit serve`` under bad input and attacks (issue 16), over real HTTP: one real server (the
command, on a free port) with a roster, real builds (gcc) and real games of two tiny C brains.

Wrong passwords (no hint, throttled), requests without a session or for another user's things, a
log of someone else's bot, an upload over the cap, file names with ``../`` or NUL, a nickname with
HTML, forms posted from another origin, a submission during the rate limit, a brain that does
not build."""

from __future__ import annotations

import io
import re
import zipfile

import httpx
import pytest

from tests.serve.webserver import (BROKEN_C, Server, brain, challenge, client, csrf_of, kothkit, ready_user, roster,
                                   sign_in, submit, user, wait_for)

NAME = "g12"
MAX_BYTES = 4000
EVIL_NICK = "<script>alert(1)</script>&<b>x"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The server, and alice and bob each with a built brain and their games played."""
    d = tmp_path_factory.mktemp("web")
    ch = challenge(d / NAME, min_interval=3600, per_day=5, max_bytes=MAX_BYTES)
    state = d / "state"
    roster(state, d, ["alice", "bob", "carol", "dave", "erin", "fred", "root"])
    r = kothkit("users", "admin", "root", "--state", state, cwd=d)
    assert r.returncode == 0, r.stderr
    server = Server([ch], state, d)
    try:
        users = {}
        for login, nick in (("alice", EVIL_NICK), ("bob", "Bob")):
            c = client(server)
            ready_user(c, login, nick)
            r = submit(c, NAME, brain(login))
            assert r.status_code == 303, r.text[-2000:]
            users[login] = c
        # Their games: each brain's submission done, both on the Scoreboard.
        wait_for(lambda: len([s for s in users["alice"].get(f"/c/{NAME}/standings.json").json()["rows"]
                              if s["games"] > 0]) == 2, 240, message="alice and bob on the Scoreboard with games")
        yield server, state, users
    finally:
        for c in locals().get("users", {}).values():
            c.close()
        assert server.stop() == 0, server.text


def test_wrong_password_gives_no_hint_and_is_throttled(site):
    server, _, _ = site
    with client(server) as c:
        wrong_password = sign_in(c, "carol", "not-it")
        unknown_user = sign_in(c, "nobody", "carol")
        for r in (wrong_password, unknown_user):
            assert r.status_code == 401
            assert "wrong login or password" in r.text
        # The same page either way (but for its fresh token): which part was wrong is not said.
        assert re.sub(r'value="[^"]{30,}"', "", wrong_password.text) == re.sub(r'value="[^"]{30,}"', "", unknown_user.text)
        assert "kothkit_session" not in c.cookies
        for _ in range(4):
            assert sign_in(c, "carol", "still-not-it").status_code == 401
        # Five failures: even the right password is refused for a while, saying how long.
        r = sign_in(c, "carol", "carol")
        assert r.status_code == 429, r.text
        assert int(r.headers["retry-after"]) > 0
        assert re.search(r"try again in \d+ s", r.text)
        assert "kothkit_session" not in c.cookies
    with client(server) as c:  # another login from the same address is not locked out
        assert sign_in(c, "dave", "dave").status_code == 303


def test_no_session_or_someone_elses(site):
    server, _, users = site
    with client(server) as anon:
        r = anon.get(f"/c/{NAME}/mine")
        assert r.status_code == 303 and r.headers["location"].startswith("/login?next=")
        assert anon.get(f"/c/{NAME}/submit").status_code == 303
        assert anon.get("/account").status_code == 303
        # A made-up session cookie is no session.
        anon.cookies.set("kothkit_session", "A" * 43)
        assert anon.get(f"/c/{NAME}/mine").status_code == 303
        r = anon.post(f"/c/{NAME}/submit", data={"csrf": "x", "language": "c11"}, files={"file": ("b.c", b"int x;")})
        assert r.status_code == 401
    alice, bob = users["alice"], users["bob"]
    alice_sub = re.search(r'data-id="(\d+)"', alice.get(f"/c/{NAME}/mine").text).group(1)
    # bob's My Submissions is his own whatever the request says; alice's submission page is hers.
    mine = bob.get(f"/c/{NAME}/mine", params={"login": "alice"}).text
    assert f'data-id="{alice_sub}"' not in mine
    assert bob.get(f"/c/{NAME}/submission/{alice_sub}").status_code == 403
    assert alice.get(f"/c/{NAME}/submission/{alice_sub}").status_code == 200


def test_log_of_someone_elses_bot_is_forbidden(site):
    server, _, users = site
    alice = users["alice"]
    games = re.findall(r'/c/g12/game/([0-9a-f]+)"', alice.get(f"/c/{NAME}/bot/alice", follow_redirects=True).text)
    assert games, "no game of alice listed"
    gid = games[0]
    own = alice.get(f"/c/{NAME}/game/{gid}/log", params={"bot": "alice"})
    assert own.status_code == 200 and "attachment" in own.headers["content-disposition"]
    assert "SECRET-alice" in own.text and "stderr-of-alice" in own.text
    assert "SECRET-bob" not in own.text and "stderr-of-bob" not in own.text
    assert alice.get(f"/c/{NAME}/game/{gid}/log", params={"bot": "bob"}).status_code == 403
    # The replay page embeds both bots' logs: not for alice; her page shows her own view only.
    page = alice.get(f"/c/{NAME}/game/{gid}")
    assert page.status_code == 200 and "SECRET-alice" in page.text and "SECRET-bob" not in page.text
    # Her replay page has every move and her own bot's log only; everyone else's, no log at all.
    moves = len(re.findall(r'"rejected":', own_replay := alice.get(f"/c/{NAME}/game/{gid}/replay").text))
    assert moves > 0 and "SECRET-alice" in own_replay and "SECRET-bob" not in own_replay
    with user(server, "erin", "Erin") as erin:  # no brain in that game
        assert erin.get(f"/c/{NAME}/game/{gid}/log").status_code == 403
        assert erin.get(f"/c/{NAME}/game/{gid}/log", params={"bot": "alice"}).status_code == 403
        theirs = erin.get(f"/c/{NAME}/game/{gid}/replay")
        assert theirs.status_code == 200 and "SECRET-" not in theirs.text
        assert len(re.findall(r'"rejected":', theirs.text)) == moves
    with client(server) as anon:
        assert anon.get(f"/c/{NAME}/game/{gid}/log").status_code == 303
        public = anon.get(f"/c/{NAME}/game/{gid}/replay")
        assert public.status_code == 200 and "SECRET-" not in public.text
        assert f'<a href="/c/{NAME}/">' in public.text  # the way back to the challenge
    with user(server, "root", "Admin") as root:
        full = root.get(f"/c/{NAME}/game/{gid}/log")
        assert full.status_code == 200 and "SECRET-alice" in full.text and "SECRET-bob" in full.text
        assert root.get(f"/c/{NAME}/game/{gid}").status_code == 200
        assert "SECRET-bob" in root.get(f"/c/{NAME}/game/{gid}/replay").text
    # My logs as a zip: only alice's own lines.
    z = zipfile.ZipFile(io.BytesIO(alice.get(f"/c/{NAME}/mine/logs.zip").content))
    texts = [z.read(n).decode() for n in z.namelist()]
    assert texts and all("SECRET-alice" in t and "SECRET-bob" not in t for t in texts)


def _stored(state) -> list[str]:
    return sorted(str(p.relative_to(state)) for p in (state / "submissions").rglob("*") if p.is_file()) \
        if (state / "submissions").exists() else []


def test_upload_over_the_cap_is_413_and_stores_nothing(site):
    server, state, _ = site
    with user(server, "dave", "Dave") as c:
        before = _stored(state)
        r = submit(c, NAME, b"/*" + b"x" * MAX_BYTES + b"*/")
        assert r.status_code == 413, r.text[-1000:]
        assert "nothing was stored" in r.text and f"{MAX_BYTES:,}" in r.text
        # A body far over the cap is refused from its Content-Length, before it is read.
        page = c.get(f"/c/{NAME}/submit")
        r = c.post(f"/c/{NAME}/submit", data={"csrf": csrf_of(page.text), "language": "c11"},
                   files={"file": ("big.c", b"x" * (10 * MAX_BYTES + 100_000))})
        assert r.status_code == 413
        assert _stored(state) == before
        assert 'data-id="' not in c.get(f"/c/{NAME}/mine").text


@pytest.mark.parametrize("filename", ["../../evil.c", "a/../../b.c", "nul\x00.c", "/etc/passwd"])
def test_bad_file_name_is_refused_and_stores_nothing(site, filename):
    server, state, _ = site
    with user(server, "dave", "Dave") as c:
        before = _stored(state)
        page = c.get(f"/c/{NAME}/submit")
        # The body made by hand: httpx would write a NUL in a file name as %00.
        body = (f'--B\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n{csrf_of(page.text)}\r\n'
                f'--B\r\nContent-Disposition: form-data; name="language"\r\n\r\nc11\r\n'
                f'--B\r\nContent-Disposition: form-data; name="file"; filename="{filename}"\r\n'
                f'Content-Type: text/x-c\r\n\r\n').encode() + brain("dave") + b"\r\n--B--\r\n"
        r = c.post(f"/c/{NAME}/submit", content=body, headers={"content-type": "multipart/form-data; boundary=B"})
        assert r.status_code == 400, r.text[-1000:]
        assert _stored(state) == before
        assert not (state.parent / "evil.c").exists()


def test_nickname_with_html_is_shown_escaped(site):
    server, _, users = site
    with client(server) as anon:
        page = anon.get(f"/c/{NAME}/").text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<script>alert" not in page and "<b>x" not in page
    me = users["alice"].get("/").text
    assert "<script>alert" not in me and "&lt;script&gt;" in me
    subs = users["bob"].get(f"/c/{NAME}/submissions").text
    assert "<script>alert" not in subs and "&lt;script&gt;" in subs
    # The title from the challenge file is text too.
    assert "Gomoku 12x12 &lt;b&gt;course&lt;/b&gt;" in page


def test_forms_from_another_origin_are_refused(site):
    server, state, users = site
    bob = users["bob"]
    token = csrf_of(bob.get("/account").text)
    data = {"csrf": token, "old": "a-new-password", "new": "", "again": "", "nickname": "Hacked"}
    evil = bob.post("/account", data=data, headers={"origin": "http://evil.example"})
    assert evil.status_code == 403 and "another site" in evil.text
    evil = bob.post("/account", data=data, headers={"origin": "null"})
    assert evil.status_code == 403
    no_origin = httpx.post(server.url + "/account", data=data, cookies=dict(bob.cookies))
    assert no_origin.status_code == 403
    via_referer = httpx.post(server.url + "/account", data=data, cookies=dict(bob.cookies),
                             headers={"referer": "http://evil.example/page"})
    assert via_referer.status_code == 403
    wrong_token = bob.post("/account", data={**data, "csrf": "x" * 43})
    assert wrong_token.status_code == 403
    before = _stored(state)
    r = bob.post(f"/c/{NAME}/submit", data={"csrf": token, "language": "c11"}, files={"file": ("b.c", brain("x"))},
                 headers={"origin": "http://evil.example"})
    assert r.status_code == 403 and _stored(state) == before
    # The sign-in form takes the token of its own cookie only.
    with client(server) as c:
        r = c.post("/login", data={"csrf": "made-up", "login": "dave", "password": "dave", "next": "/"})
        assert r.status_code == 403
    assert "Hacked" not in bob.get(f"/c/{NAME}/").text
    # With the right origin and token the same form works.
    assert bob.post("/account", data={**data, "nickname": "Bobby"}).status_code == 303


def test_submission_during_the_rate_limit_is_429(site):
    _, state, users = site
    before = _stored(state)
    r = submit(users["bob"], NAME, brain("bob2"))
    assert r.status_code == 429, r.text[-1000:]
    wait = int(r.headers["retry-after"])
    assert 0 < wait <= 3600
    assert re.search(r"\d", r.text) and "submi" in r.text.lower()
    assert _stored(state) == before


def test_brain_that_does_not_build_shows_its_compiler_output_to_its_author_only(site):
    server, _, users = site
    with user(server, "fred", "Fred") as c:
        r = submit(c, NAME, BROKEN_C)
        assert r.status_code == 303, r.text[-1000:]
        sid = re.search(r"submitted=(\d+)", r.headers["location"]).group(1)
        page = wait_for(lambda: (t := c.get(f"/c/{NAME}/mine").text) and 'data-status="build-failed"' in t and t,
                        120, message="fred's broken brain shown as build failed")
        assert "build failed" in page and "error" in page
        detail = c.get(f"/c/{NAME}/submission/{sid}").text
        assert "error" in detail.lower()
    assert users["bob"].get(f"/c/{NAME}/submission/{sid}").status_code == 403
    everyone = users["bob"].get(f"/c/{NAME}/submissions").text
    assert "this is not C" not in everyone and "build-output" not in everyone
