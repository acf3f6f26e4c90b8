"""The course's workflow (seed 001) end to end in the system's Chromium, against a real ``kothkit
serve`` of a gomoku_classic12 submissions challenge: sign in with the roster password, forced to
choose a new password and a nickname; submit a C brain; see it build and play, and appear on an
open Scoreboard without a reload; submit a broken brain and read the compiler's error; download
one's own game log.  The issue's acceptance test: short limits, two tiny brains."""

from __future__ import annotations

import pytest

from tests.serve.webserver import BROKEN_C, Server, brain, challenge, roster, submit, user, wait_for

NAME = "g12"
NICK = "Ali <b>ce</b> & co"


@pytest.fixture
def served(tmp_path):
    ch = challenge(tmp_path / NAME, min_interval=1)
    state = tmp_path / "state"
    roster(state, tmp_path, ["20230001", "20230002"])
    server = Server([ch], state, tmp_path)
    try:
        yield server
    finally:
        assert server.stop() == 0, server.text


def test_course_workflow_in_a_browser(browser, served, tmp_path):
    server = served
    # A classmate's brain is there first, to play against (submitted over HTTP).
    with user(server, "20230002", "Bob") as bob:
        assert submit(bob, NAME, brain("bob")).status_code == 303
    errors: list[str] = []
    board = browser.new_page()
    page = browser.new_page()
    for p in (board, page):
        p.on("pageerror", lambda e: errors.append(str(e)))
        p.on("dialog", lambda d: (errors.append("dialog: " + d.message), d.dismiss()))
        # Script errors and CSP violations; not the pages answered 4xx on purpose (a refused form).
        p.on("console", lambda m: m.type == "error" and "Failed to load resource" not in m.text
             and errors.append("console: " + m.text))
    try:
        # The Scoreboard, open the whole time: it must never reload.
        board.goto(f"{server.url}/c/{NAME}/")
        board.evaluate("window.kept = 'the same page'")

        # First sign-in with the student number, then the forced change of password and nickname.
        page.goto(f"{server.url}/c/{NAME}/submit")
        assert "/login" in page.url
        page.fill("#login", "20230001")
        page.fill("#password", "20230001")
        page.click("#signin-button")
        page.wait_for_url(f"**/account?next=/c/{NAME}/submit")
        assert page.is_visible("#forced")
        page.goto(f"{server.url}/c/{NAME}/mine")  # anything else sends back to the account page
        assert page.url.endswith(f"/account?next=/c/{NAME}/mine")
        page.fill("#old", "20230001")
        page.fill("#new", "20230001")
        page.fill("#again", "20230001")
        page.fill("#nickname", NICK)
        page.click("#save")
        assert "not your login" in page.text_content("#message")
        page.fill("#old", "20230001")
        page.fill("#new", "correct horse 1")
        page.fill("#again", "correct horse 1")
        page.fill("#nickname", NICK)
        page.click("#save")
        # Saved, and back where the student was going, told so once.
        page.wait_for_url(f"{server.url}/c/{NAME}/mine")
        assert "Saved" in page.text_content("#flash")
        assert page.text_content("#me") == NICK

        # Submit a C brain: it builds, plays, and is done.
        page.goto(f"{server.url}/c/{NAME}/submit")
        page.select_option("#language", "c11")
        page.set_input_files("#file", {"name": "my brain.c", "mimeType": "text/x-c", "buffer": brain("alice")})
        page.click("#submit")
        page.wait_for_url("**/mine?submitted=*")
        # My Submissions follows the brain without a reload: queued or building, playing, done.
        page.evaluate("window.kept = 'my submissions'")
        seen: list[str] = []

        def status():
            s = page.get_attribute("#submissions tbody tr[data-status]", "data-status")
            if not seen or seen[-1] != s:
                seen.append(s)
            return s == "done"

        wait_for(status, 240, every=0.1, message=f"the brain done (statuses seen: {seen})")
        # Seen live: at least one change of status before "done", in the order a brain goes through
        # them (a fast build may be over before the page's first look).
        order = ["queued", "building", "playing", "done"]
        assert len(seen) >= 2 and seen == sorted(seen, key=order.index), seen
        assert page.evaluate("window.kept") == "my submissions"

        # The open Scoreboard shows the new brain with its games, without a reload, its
        # nickname as text.
        board.wait_for_function(
            """nick => [...document.querySelectorAll('#scoreboard tbody tr')].some(
                   tr => tr.cells[1].textContent === nick && Number(tr.cells[6].textContent) > 0)""",
            arg=NICK, timeout=120_000)
        assert board.evaluate("window.kept") == "the same page"
        assert board.locator("#scoreboard b").count() == 0

        # One's own game log: the brain's DEBUG lines and stderr, never the opponent's.
        page.goto(f"{server.url}/c/{NAME}/bot/20230001")
        with page.expect_download() as dl:
            page.click("#games a.log")
        text = open(dl.value.path(), encoding="utf-8").read()
        assert "SECRET-alice" in text and "stderr-of-alice" in text
        assert "SECRET-bob" not in text and "stderr-of-bob" not in text

        # A broken brain: the compiler's error on My Submissions.
        page.goto(f"{server.url}/c/{NAME}/submit")
        page.set_input_files("#file", {"name": "broken.c", "mimeType": "text/x-c", "buffer": BROKEN_C})
        page.click("#submit")
        if page.is_visible("#message"):  # the one-second interval: once more, as the page says
            page.wait_for_timeout(1500)
            page.goto(f"{server.url}/c/{NAME}/submit")
            page.set_input_files("#file", {"name": "broken.c", "mimeType": "text/x-c", "buffer": BROKEN_C})
            page.click("#submit")
        page.wait_for_url("**/mine?submitted=*")

        wait_for(lambda: page.get_attribute("#submissions tbody tr[data-status]", "data-status") == "build-failed",
                 120, every=0.2, message="the broken brain shown as build failed")
        output = page.text_content("pre.build-output")
        assert "error" in output, output
        # The working brain stays on the Scoreboard.
        assert NICK in [t for t in board.locator("#scoreboard tbody tr td:nth-child(2)").all_text_contents()]
    finally:
        board.close()
        page.close()
    assert not errors, errors
