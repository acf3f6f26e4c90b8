"""``kothkit serve`` killed in the middle of its work (SIGKILL of its whole process group: builds and
games cut short), then started again on the same state: the site comes back as it was, the work
is redone, and no game is counted twice."""

from __future__ import annotations

import re

from tests.serve.webserver import Server, brain, challenge, client, roster, submit, user, wait_for

NAME = "g12"


def test_restart_in_the_middle_of_the_games_redoes_the_work_once(tmp_path):
    ch = challenge(tmp_path / NAME, min_interval=1)
    state = tmp_path / "state"
    roster(state, tmp_path, ["alice", "bob"])
    server = Server([ch], state, tmp_path)
    try:
        cookies = {}
        for login in ("alice", "bob"):
            with user(server, login, login.title()) as c:
                # 40 ms a move: a game lasts a couple of seconds, long enough to be cut short.
                assert submit(c, NAME, brain(login, delay_ms=40)).status_code == 303
                cookies[login] = dict(c.cookies)
        with client(server) as c:
            def busy():
                subs = c.get(f"/c/{NAME}/submissions").text
                return "playing" in subs or "building" in subs

            wait_for(busy, 120, every=0.1, message="a build or a game under way")
    finally:
        server.stop(kill=True)
    server = Server([ch], state, tmp_path)
    try:
        with client(server) as c:
            # The accounts and sessions survived: alice is still signed in.
            with client(server) as alice:
                alice.cookies.update(cookies["alice"])
                mine = alice.get(f"/c/{NAME}/mine")
                assert mine.status_code == 200 and 'data-status="' in mine.text

            def both_done():
                statuses = re.findall(r'data-status="([a-z-]+)"', c.get(f"/c/{NAME}/submissions").text)
                return statuses == ["done", "done"]

            # The statuses first, then the standings: a brain is done only once every game due is
            # counted, so the standings read after "done" must hold all of them.  (Read the other way
            # round, the standings of one moment were checked against the statuses of a later one: a
            # game stored between the two reads showed "done" beside standings one game short.)
            wait_for(both_done, 240, every=0.3, message="both brains done after the restart")
            rows = {r["bot"]: r for r in c.get(f"/c/{NAME}/standings.json").json()["rows"]}
            assert len(rows) == 2, rows
            # One pair, two games (each brain opens one): counted once each, whatever was cut short.
            assert [r["games"] for r in rows.values()] == [2, 2], rows
            assert sum(r["wins"] + r["draws"] + r["losses"] for r in rows.values()) == 4
            games = re.findall(r"/c/g12/game/([0-9a-f]+)\"", c.get(f"/c/{NAME}/bot/{next(iter(rows))}").text)
            assert len(games) == len(set(games)) == 2
    finally:
        assert server.stop() == 0, server.text
