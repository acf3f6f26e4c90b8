"""A Grid's board, line and empty-cell colours and its styles, drawn in a real headless Chromium by
the one script the replay, report and play pages share; and a replay page whose picture hook
fails says so instead of hiding it."""

from __future__ import annotations

from kothkit.picture import CELLS, STONES, Grid, board_js
from kothkit.serve import playpage
from kothkit.results.replay import page_of
from kothkit.testing.kit import _transcript
from kothkit.testing.playout import playout
from kothkit.game import GameInfo
from tests.core.test_conformance import Race
from tests.core.test_kit_hooks import shown_race
from tests.results.browser import Watched


def othello_like(match: Race) -> Grid:
    # White stones on a green, lined board: told apart from the empty squares, which show the board.
    row = "".join("OX"[i % 2] for i in range(match.total)) + "." * (Race.GOAL - match.total)
    return Grid(rows=(row, "." * Race.GOAL), pieces={"X": "#111111", "O": "#ffffff"}, style=STONES,
                board_colour="#0a7d3b", line_colour="#002200", last=((0, max(0, match.total - 1)),))


def _page(tmp_path, name: str, info: GameInfo) -> str:
    t = _transcript(info, 1, {}, playout(info, 1))
    path = tmp_path / f"{name}.html"
    path.write_text(page_of(t), encoding="utf-8")
    return path.as_uri()


def _fill(w: Watched, selector: str) -> list[str]:
    return w.page.eval_on_selector_all(selector, "els => els.map(e => e.getAttribute('fill'))")


def test_a_grid_is_drawn_in_its_colours_and_style(browser, tmp_path):
    stones = _page(tmp_path, "stones", shown_race(picture=othello_like))
    w = Watched(browser)
    try:
        w.page.goto(stones)
        w.page.keyboard.press("End")
        assert _fill(w, "#boards svg .ground") == ["#0a7d3b"]
        assert set(w.page.eval_on_selector_all("#boards svg .grid", "els => els.map(e => e.getAttribute('stroke'))")) \
            == {"#002200"}
        pieces = _fill(w, "#boards svg .piece")
        assert pieces.count("#ffffff") and pieces.count("#111111") and len(pieces) == 10
        assert _fill(w, "#boards svg .hole") == []  # empty squares show the board itself
        assert not w.page.locator("#picture-problem").is_visible() and w.errors == []
    finally:
        w.close()


def test_a_cells_grid_takes_its_board_and_hole_colours(browser, tmp_path):
    info = shown_race(picture=lambda m: Grid(rows=("X" * m.total + "." * (Race.GOAL - m.total),),
                                             pieces={"X": "#ffffff"}, style=CELLS, board_colour="#333333",
                                             empty_colour="#88aacc"))
    w = Watched(browser)
    try:
        w.page.goto(_page(tmp_path, "cells", info))
        w.page.keyboard.press("End")
        assert _fill(w, "#boards svg .ground") == ["#333333"]
        assert set(_fill(w, "#boards svg .hole")) <= {"#88aacc"} and set(_fill(w, "#boards svg .piece")) == {"#ffffff"}
        assert w.errors == []
    finally:
        w.close()


def test_a_replay_page_whose_picture_raises_says_so(browser, tmp_path):
    def broken(match):
        raise ValueError("no such stone")

    w = Watched(browser)
    try:
        w.page.goto(_page(tmp_path, "broken", shown_race(picture=broken)))
        note = w.page.locator("#picture-problem")
        assert note.is_visible()
        assert "race's ShownRace.picture() raised ValueError: no such stone (at move 0)" in note.inner_text()
        assert w.errors == []
    finally:
        w.close()


def test_the_play_page_draws_with_the_replay_pages_script():
    # The page (served by `kothkit play --web` and the host alike) loads board.js, which is the
    # replay page's own script, and its play.js draws with it.
    page = playpage.render_local("x", "token")
    assert 'src="/static/board.js"' in page
    assert "kothkitBoard(" in (playpage.STATIC / "play.js").read_text(encoding="utf-8")
    assert "kothkitBoard" in board_js()
