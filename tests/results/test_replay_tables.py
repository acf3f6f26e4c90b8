"""Replay pages of a game of more than two seats (lowbid) opened in a real headless Chromium: the last
step gives every seat, best place first, with its points, and the seat that left by a fault with
its verdict; the page asks the network for nothing."""

from __future__ import annotations

import re

from kothkit.results.archive import open_journal
from tests.results.browser import Watched
from tests.results.conftest import ROOT, kothkit
from tests.serve.test_nseat_host import CRASHER


def test_a_table_replay_ends_with_every_seats_place_points_and_verdict(browser, tmp_path):
    crasher = tmp_path / "crasher"
    crasher.mkdir()
    (crasher / "bot.py").write_text(CRASHER)
    (crasher / "bot.toml").write_text('name = "crasher"\ncommand = ["python3", "bot.py"]\n')
    bots = ROOT / "plugins" / "lowbid" / "bots"
    kothkit("run", "lowbid", "--bots", bots / "one", "--bots", bots / "tracker", "--bots", crasher, "--rounds", "1",
            "--rules", "rounds=3", "--seed", "4", "--db", tmp_path / "j.sqlite", "-q", cwd=tmp_path)
    kothkit("export", tmp_path / "j.sqlite", "--format", "html", "--out", tmp_path / "pages", cwd=tmp_path)
    pages = {p.name.split("-")[-1][:12]: p for p in (tmp_path / "pages").glob("*.html")}
    records = open_journal(tmp_path / "j.sqlite").records
    assert len(records) == 3 and len(pages) == 3
    w = Watched(browser)
    try:
        for r in records:
            w.page.goto(pages[r.id[:12]].as_uri())
            w.page.keyboard.press("End")
            seats = w.page.locator("#seats li").all_inner_texts()
            want = sorted(range(3), key=lambda i: (r.seat_places[i], i))
            assert len(seats) == 3, seats
            for text, i in zip(seats, want):
                assert re.fullmatch(rf"{r.seat_places[i]}\. {r.players[i]}: {r.seat_points[i]:g} points"
                                    + (" — left the game: crash" if r.players[i] == "crasher" else ""), text), text
            assert w.page.locator("#seats li.left").count() == 1
            assert r.reason in w.page.locator("#result").inner_text()
        assert w.errors == [] and all(u.startswith("file://") for u in w.requests), (w.errors, w.requests)
    finally:
        w.close()
