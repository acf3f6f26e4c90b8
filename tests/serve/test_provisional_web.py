"""Provisional rows on a real ``kothkit serve``'s Scoreboard (issue 29, item 4), followed live in
Chromium while three students' brains play: a row whose games are not all counted says so (its
class, "N of M" games counted of due, the Elo of its games so far) on the live page and in the
JSON, and, with its last game, becomes a final row on the same page without a reload."""

from __future__ import annotations

import re

from tests.serve.webserver import Server, brain, challenge, client, roster, submit, user, wait_for, watched_page

NAME = "g12"
LOGINS = ("20240001", "20240002", "20240003")


def test_provisional_rows_become_final_on_the_live_scoreboard(tmp_path, browser):
    roster(tmp_path / "state", tmp_path, list(LOGINS))
    server = Server([challenge(tmp_path / NAME)], tmp_path / "state", tmp_path)
    page, errors = watched_page(browser)
    try:
        page.goto(f"{server.url}/c/{NAME}/")
        for k, login in enumerate(LOGINS):
            with user(server, login, f"Student {k}") as c:
                # 30 ms a move: each game takes a second or two, long enough to be seen under way.
                assert submit(c, NAME, brain(f"s{k}", delay_ms=30)).status_code == 303
        due = 2 * (len(LOGINS) - 1)
        # Under way: provisional rows, on the live page (no reload) and in the JSON alike.
        page.wait_for_selector("#scoreboard tbody tr.provisional", timeout=180_000)
        with client(server) as c:
            rows = wait_for(lambda: [r for r in c.get(f"/c/{NAME}/standings.json").json()["rows"]
                                     if r["provisional"] and r["due"] == due] or None, 120,
                            message="a provisional row of a brain among all three")
        r = rows[0]
        assert r["games"] < due and r["shown_games"] == f"{r['games']} of {due}", r
        assert r["so_far"].startswith("provisional, Elo ") and r["note"], r
        cells = page.locator("#scoreboard tbody tr.provisional >> nth=0").locator("td").all_text_contents()
        assert re.fullmatch(r"\d+ of \d+", cells[6]) and cells[7].startswith("provisional"), cells
        # All played: every row final, on the same page.
        page.wait_for_function(
            f"""() => {{
                const rows = [...document.querySelectorAll('#scoreboard tbody tr')];
                return rows.length === {len(LOGINS)} && rows.every(tr => !tr.classList.contains('provisional')
                    && tr.cells[6].textContent === '{due}');
            }}""", timeout=240_000)
        with client(server) as c:
            final = c.get(f"/c/{NAME}/standings.json").json()["rows"]
            assert all(not r["provisional"] and r["games"] == due and r["so_far"] == "" for r in final), final
            assert 'class="provisional"' not in c.get(f"/c/{NAME}/").text
        assert errors == []
    finally:
        page.close()
        assert server.stop() == 0, server.text
