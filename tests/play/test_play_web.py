"""``kothkit play --web``: a person plays whole games on the local page in the system's Chromium,
clicking on the board (an occupied cell is explained and asked again, as is a mistyped entry);
the game is stored and ``kothkit verify`` re-plays it."""

from __future__ import annotations

import itertools
import signal
import subprocess
import sys


from tests.play.screen import Screen

# Arrow functions: the page's Content-Security-Policy forbids evaluating a string.
SETTLED = "() => ['waiting', 'over'].includes(document.body.dataset.state)"


def click_through(page, pick, messages: list[str]) -> str:
    """Click until the game is over: ``pick(asks)`` gives the selectors to click for one entry (or
    ``("type", text)``: the entry typed); the page's messages (mistakes explained) are added to
    ``messages``."""
    for _ in range(300):
        page.wait_for_function(SETTLED, timeout=60_000)
        if page.get_attribute("body", "data-state") == "over":
            return page.text_content("#result")
        seq = page.get_attribute("body", "data-seq")
        messages.append("boards: " + page.text_content("#boards"))
        for selector in pick(page.text_content("#asks")):
            if isinstance(selector, tuple):
                page.fill("#entry", selector[1])
                page.press("#entry", "Enter")
            else:
                page.click(selector)
        try:
            page.wait_for_function("seq => document.body.dataset.seq !== seq", arg=seq, timeout=60_000)
        except Exception as e:
            raise AssertionError(f"the page did not move on: entry {page.input_value('#entry')!r}, asks "
                                 f"{page.text_content('#asks')!r}, log {page.text_content('#log')[-800:]!r}") from e
        messages.append(page.text_content("#message"))
    raise AssertionError("the game did not end after 300 entries")


def run_page(browser, tmp_path, args, pick, mistype: str | None = None,
             again: bool = False, launcher: list[str] | None = None) -> tuple[str, list[str], Screen]:
    s = Screen(["play", *args, "--web", "--db", "p.sqlite"], tmp_path, launcher)
    page = browser.new_page()
    errors: list[str] = []
    messages: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        url = s.expect(r"open (http://127\.0\.0\.1:\d+/) to play", 60).group(1)
        page.goto(url)
        if mistype is not None:
            page.wait_for_function("() => document.body.dataset.state === 'waiting'", timeout=60_000)
            page.fill("#entry", mistype)
            page.press("#entry", "Enter")
            page.wait_for_function("() => document.getElementById('message').textContent.includes('cannot read')",
                                   timeout=30_000)
        result = click_through(page, pick, messages)
        s.expect(r"stored as game [0-9a-f]+ in", 30)
        s.expect("Ctrl-C to stop", 30)
        if again:
            # New game on the page: the next game of the seed, on the same page; then left there.
            page.click("#again")
            s.expect(r"game 1 of seed", 30)
            page.wait_for_function("() => document.body.dataset.state !== 'over'", timeout=30_000)
            assert page.text_content("#result") == ""
            page.wait_for_function("() => document.body.dataset.state === 'waiting'", timeout=60_000)
            page.click("#quit")
            s.expect("you left the game: nothing stored", 30)
            assert page.wait_for_function("() => document.body.dataset.state === 'over'", timeout=30_000)
            assert "nothing was stored" in page.text_content("#result")
        else:
            s.proc.send_signal(signal.SIGINT)
        assert s.wait() == 0
    finally:
        page.close()
        s.close()
    assert not errors, errors
    return result, messages, s


def test_connect4_by_clicking(browser, cli, tmp_path):
    columns = itertools.cycle(range(7))
    result, messages, s = run_page(browser, tmp_path, ["connect4_hidden", "--against", "deducer"],
                            lambda asks: [f'rect.target[data-cell="0,{next(columns)}"]'], mistype="x")
    assert result.startswith("Result: ")
    assert "deducer moved" in s.text
    # While the game is on, the page shows only the person's own view, never the true board.
    boards = [m for m in messages if m.startswith("boards: ")]
    assert boards and all("your view (O)" in b or "your view (X)" in b for b in boards), boards[:3]
    assert not any("true board" in b for b in boards)
    r = cli("verify", "p.sqlite", timeout=120)
    assert r.returncode == 0 and "1 identical" in r.stdout, r.stdout + r.stderr


def test_swap2_by_clicking(browser, cli, tmp_path):
    # The opening's three stones, then the first of them again: explained, and asked again.
    cells = itertools.chain([(7, 7), (8, 8), (8, 7), (7, 7)], ((r, c) for r in range(15) for c in range(15)))

    def pick(asks: str) -> list[str]:
        if "choose" in asks:
            return ["#buttons button >> nth=0"]  # swap / play black
        n = 3 if "place three" in asks else 1
        return [f'rect.target[data-cell="{r},{c}"]' for r, c in itertools.islice(cells, n)]

    result, messages, s = run_page(browser, tmp_path, ["gomoku_swap2", "--against", "threat"], pick)
    assert result.startswith("Result: ")
    assert any("not allowed: (7,7) is already taken" in m for m in messages), messages
    r = cli("verify", "p.sqlite", timeout=120)
    assert r.returncode == 0 and "1 identical" in r.stdout, r.stdout + r.stderr


def test_classic12_by_clicking_second_seat(browser, cli, tmp_path):
    # An opening stone first (occupied: explained, asked again), then the cells in order.
    cells = itertools.chain([(5, 5)], ((r, c) for r in range(12) for c in range(12)))
    result, messages, s = run_page(browser, tmp_path, ["gomoku_classic12", "--against", "threat", "--seat", "1"],
                                   lambda asks: ['rect.target[data-cell="{},{}"]'.format(*next(cells))], again=True)
    assert result.startswith("Result: ")
    assert any("not allowed: (5, 5) is occupied" in m for m in messages), messages
    assert "threat played" in s.text
    r = cli("verify", "p.sqlite", timeout=120)
    assert r.returncode == 0 and "1 identical" in r.stdout, r.stdout + r.stderr


def test_a_table_of_more_seats_with_a_person_in_one(browser, tmp_path):
    """A game of more seats on the page (tests/core/nseat_game.py's, 3 seats): the person takes seat 1
    and types each round's number (a mistake is explained and asked again), the bot in the other
    two seats answers its prompts of the same round; the result is the person's place among them,
    and the game is stored with every seat's result; ``verify`` re-plays it (the bot's copy in the
    third seat, "steady#2", found as the bot renamed)."""
    from pathlib import Path

    here = Path(__file__).resolve().parents[1]
    entries = iter(["x", "3", "3", "3", "3"])
    launcher = [sys.executable, str(here / "core" / "nseat_game.py")]
    result, messages, s = run_page(browser, tmp_path,
                                   ["nseat_sum", "--against", str(here / "bots" / "nseat" / "steady"), "--seat", "1"],
                                   lambda asks: [("type", next(entries))], launcher=launcher)
    assert result == "Result: you placed 1 of 3 with 12 points: 4 rounds"
    assert any("1 to 9" in m for m in messages), messages
    assert "steady#2 played" in s.text
    import sqlite3

    with sqlite3.connect(tmp_path / "p.sqlite") as db:
        players, places = db.execute("SELECT players, seat_places FROM games").fetchone()
    assert players == '["steady", "you", "steady#2"]' and places == "[2, 1, 2]"
    r = subprocess.run([*launcher, "verify", "p.sqlite", "--jobs", "1"], capture_output=True, text=True, timeout=120,
                       cwd=tmp_path)
    assert r.returncode == 0 and "1 identical" in r.stdout, r.stdout + r.stderr
