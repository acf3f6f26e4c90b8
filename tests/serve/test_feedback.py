"""What a student learns from a submission (issue 28, item 7), over real HTTP and in Chromium,
against a real ``kothkit serve``: My Submissions and the submission page show, per brain, its
points, wins, draws and losses, the games counted of those due, and its games' faults by verdict
with the first one's reason and a link to that game (the brain's own fault in full, with its stderr
quote; an opponent's neutral).  A brain that lost every game by a fault of its own is flagged.  A
status is spelt one way on every page."""

from __future__ import annotations

import re
from html import unescape

import pytest

from tests.serve.test_privacy import crash_brain
from tests.serve.webserver import BROKEN_C, Server, brain, challenge, client, roster, submit, user, wait_for

NAME = "g12"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    d = tmp_path_factory.mktemp("feedback")
    ch = challenge(d / NAME)
    state = d / "state"
    roster(state, d, ["alice", "bob", "carol"])
    server = Server([ch], state, d)
    try:
        with user(server, "alice", "Alice") as alice:
            assert submit(alice, NAME, crash_brain("alice")).status_code == 303
        with user(server, "bob", "Bob") as bob:
            assert submit(bob, NAME, brain("bob")).status_code == 303
        with user(server, "carol", "Carol") as carol:
            assert submit(carol, NAME, BROKEN_C).status_code == 303
        with client(server) as c:
            def settled():
                statuses = re.findall(r'data-status="([a-z-]+)"', c.get(f"/c/{NAME}/submissions").text)
                return sorted(statuses) == ["build-failed", "done", "done"]
            wait_for(settled, 240, message="two brains done, one build failed")
        yield server
    finally:
        assert server.stop() == 0, server.text


def visible(html: str) -> str:
    """A page's text as shown (tags and attributes left out)."""
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]*>", " ", html)))


def test_a_brain_that_lost_every_game_by_a_fault_is_flagged_with_its_first_fault(site):
    with user(site, "alice", "Alice") as alice:
        mine = alice.get(f"/c/{NAME}/mine").text
        text = visible(mine)
        assert "0 W / 0 D / 2 L" in text and "2 of 2 games counted" in text and "0 points" in text
        assert "lost every game by a fault of its own" in text
        # Her brain's own fault, in full: the verdict, its count, and its stderr quote (hers).
        assert re.search(r"crash × 2; the first: crash: killed by SIGSEGV; stderr: .MARK-alice-stderr", text), text
        first = re.search(r'class="own-faults">.*?href="(/c/g12/game/[0-9a-f]+)"', mine, re.S).group(1)
        game = alice.get(first)
        assert game.status_code == 200 and "MARK-alice-stderr" in game.text
        # The submission page says the same.
        sid = re.search(r'data-id="(\d+)"', mine).group(1)
        page = visible(alice.get(f"/c/{NAME}/submission/{sid}").text)
        assert "lost every game by a fault of its own" in page and "crash × 2" in page and "0 W / 0 D / 2 L" in page


def test_an_opponents_fault_is_shown_neutral(site):
    with user(site, "bob", "Bob") as bob:
        mine = bob.get(f"/c/{NAME}/mine").text
        text = visible(mine)
        assert "2 W / 0 D / 0 L" in text and "2 of 2 games counted" in text
        assert "No faults of this brain in its 2 games" in text and "lost every game" not in text
        assert "Its opponents' faults: crash × 2; the first: crash: killed by SIGSEGV" in text
        assert "MARK-alice" not in mine and "stderr: '" not in mine


def test_one_spelling_of_each_status(site):
    with user(site, "carol", "Carol") as carol:
        mine = carol.get(f"/c/{NAME}/mine").text
        sid = re.search(r'data-id="(\d+)"', mine).group(1)
        sub = carol.get(f"/c/{NAME}/submission/{sid}").text
    with client(site) as anon:
        everyone = anon.get(f"/c/{NAME}/submissions").text
    for page in (mine, sub, everyone):
        assert "build failed" in visible(page) and "build-failed" not in visible(page)
    assert "done" in visible(everyone)


def test_my_submissions_in_a_browser(site, browser):
    with user(site, "alice", "Alice") as alice:
        cookies = dict(alice.cookies)
    context = browser.new_context()
    context.add_cookies([{"name": k, "value": v, "url": site.url} for k, v in cookies.items()])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(f"{site.url}/c/{NAME}/mine")
        assert page.is_visible(".all-faults")
        assert "0 W / 0 D / 2 L" in page.text_content(".wdl")
        assert "crash" in page.text_content(".own-faults .fault-verdict")
        page.click(".own-faults a.fault-game")
        page.wait_for_url(re.compile(r".*/c/g12/game/[0-9a-f]+$"))
        assert "crash: killed by SIGSEGV; stderr:" in page.text_content("main")
        assert errors == []
    finally:
        context.close()
