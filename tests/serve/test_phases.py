"""Contest phases: a challenge's ``[serve]`` ``opens`` and ``closes`` (dates with a time zone), with
a real ``kothkit serve`` over HTTP.  Dates are set in the test's challenge (long past or far ahead,
or moved into the past between two runs of the server): no test waits for a date to come."""

from __future__ import annotations

import csv
import io
import re

import pytest

from kothkit.serve.settings import SettingsError, load
from tests.serve.webserver import Server, brain, challenge, client, kothkit, roster, submit, user, wait_for

NAME = "ph"


def test_dates_need_a_time_zone_and_an_order(tmp_path):
    ch = challenge(tmp_path / "a")
    toml = ch / "kothkit.toml"
    base = toml.read_text()
    toml.write_text(base + "opens = 2026-02-01T09:00:00+01:00\ncloses = \"2026-05-31T23:59:00Z\"\n")
    s = load(ch)
    assert s.opens is not None and s.opens.utcoffset().total_seconds() == 3600
    assert s.closes is not None and s.closes.isoformat() == "2026-05-31T23:59:00+00:00"
    toml.write_text(base + "closes = 2026-05-31T23:59:00\n")
    with pytest.raises(SettingsError, match=r"kothkit.toml:\d+: \[serve\] closes must be a date and time with a time zone"):
        load(ch)
    toml.write_text(base + "opens = 2026-06-01T00:00:00Z\ncloses = 2026-05-31T23:59:00Z\n")
    with pytest.raises(SettingsError, match="must come after opens"):
        load(ch)


def test_before_opens_and_after_closes_submissions_are_refused_with_the_date(tmp_path):
    early = challenge(tmp_path / "early", extra="")
    late = challenge(tmp_path / "late")
    for ch, line in ((early, "opens = 2099-01-01T09:00:00+01:00\n"), (late, "closes = 2001-01-01T00:00:00Z\n")):
        (ch / "kothkit.toml").write_text((ch / "kothkit.toml").read_text() + line)
    state = tmp_path / "state"
    roster(state, tmp_path, ["ann"])
    server = Server([early, late], state, tmp_path)
    try:
        # kothkit serve says each challenge's phase.
        assert re.search(r"early: .*submissions open at 2099-01-01 09:00\+01:00", server.text), server.text
        assert re.search(r"late: .*closed at 2001-01-01 00:00\+00:00: the standings are final", server.text)
        with user(server, "ann", "Ann") as c:
            r = submit(c, "early", brain("ann"))
            assert r.status_code == 400 and "submissions open at 2099-01-01 09:00+01:00" in r.text
            r = submit(c, "late", brain("ann"))
            assert r.status_code == 400 and "closed at 2001-01-01 00:00+00:00" in r.text
            assert c.get("/c/early/mine").text.count('data-status="') == 0  # nothing was stored
            # Every page of a closed challenge with nothing due says its standings are final.
            for path in ("/c/late/", "/c/late/crosstable", "/c/late/submissions", "/c/late/submit"):
                page = c.get(path)
                assert 'data-phase="final"' in page.text and "Final standings" in page.text, path
            assert 'data-phase="before"' in c.get("/c/early/").text
            index = c.get("/").text  # the list of challenges says each one's phase
            assert 'data-phase="before"' in index and 'data-phase="final"' in index
    finally:
        assert server.stop() == 0, server.text


def test_after_closes_the_games_due_are_played_then_the_standings_are_final(tmp_path):
    ch = challenge(tmp_path / NAME, min_interval=1)
    state = tmp_path / "state"
    roster(state, tmp_path, ["ann", "bob", "root"])
    assert kothkit("users", "admin", "root", "--state", state, cwd=tmp_path).returncode == 0
    server = Server([ch], state, tmp_path)
    try:
        for login in ("ann", "bob"):
            with user(server, login, login.title()) as c:
                assert submit(c, NAME, brain(login)).status_code == 303
        with client(server) as c:
            assert 'data-phase="' not in c.get(f"/c/{NAME}/").text  # open: no mark
    finally:
        # Stopped at once, builds and games due; the deadline then passes (the date is moved).
        assert server.stop() == 0, server.text
    toml = ch / "kothkit.toml"
    toml.write_text(toml.read_text() + "closes = 2020-01-01T00:00:00+00:00\n")
    server = Server([ch], state, tmp_path)
    try:
        with client(server) as c:
            def final():
                page = c.get(f"/c/{NAME}/")
                m = re.search(r'data-phase="([a-z]+)"', page.text)
                assert m and m.group(1) in ("closed", "final"), page.text[-2000:]
                return m.group(1) == "final"

            wait_for(final, 240, every=0.3, message="the standings final once the games due are played")
            rows = c.get(f"/c/{NAME}/standings.json").json()["rows"]
            assert sorted(r["games"] for r in rows) == [2, 2], rows  # every game due was played
            assert re.findall(r'data-status="([a-z-]+)"', c.get(f"/c/{NAME}/submissions").text) == ["done", "done"]
            # A replay page (a page of its own) says it too.
            games = c.get(f"/c/{NAME}/bot/{rows[0]['bot']}").text
            gid = re.search(rf"/c/{NAME}/game/([0-9a-f]+)", games).group(1)
            replay = c.get(f"/c/{NAME}/game/{gid}/replay")
            assert replay.status_code == 200 and 'data-phase="final"' in replay.text
        with user(server, "ann", "Ann") as c:
            r = submit(c, NAME, brain("ann2"))
            assert r.status_code == 400 and "closed at 2020-01-01 00:00+00:00" in r.text
        with user(server, "root", "Root") as root:
            # The admin page says the phase, and the grades are final, in the Scoreboard's order.
            assert 'data-phase="final"' in root.get("/admin").text
            grades = list(csv.DictReader(io.StringIO(root.get(f"/admin/c/{NAME}/grades.csv").text)))
            assert [g["nickname"] for g in grades] == [r["name"] for r in rows]
            assert {g["standings"] for g in grades} == {"final"}
    finally:
        assert server.stop() == 0, server.text
