"""Replay pages opened in a real headless Chromium: stepping to move N draws exactly the stones
(or discs) of the first N moves, the last step shows the outcome, and no page asks the network
for anything."""

from __future__ import annotations

import re
from pathlib import Path



from kothkit.results.archive import open_journal
from tests.results.browser import Watched
from tests.results.conftest import kothkit

PIECES = "#boards .panel:first-child .piece"


def swap2_counts(r) -> list[int]:
    counts, n = [0], 0
    for m in r.moves:
        cells = re.findall(r"\(\s*\d+\s*,\s*\d+\s*\)", m.reply)
        if m is r.moves[-1] and r.verdict in ("invalid-reply", "illegal-move"):
            cells = []
        n += len(cells)
        counts.append(n)
    return counts


def classic12_counts(r) -> list[int]:
    counts, n = [0], 4  # the center4 opening
    counts[0] = n
    for m in r.moves:
        if re.fullmatch(r"\d+ \d+", m.reply) and not (m is r.moves[-1] and r.verdict in ("invalid-reply", "illegal-move")):
            n += 1
        counts.append(n)
    return counts


def connect4_counts(r) -> list[int]:
    heights, counts = [0] * 7, [0]
    for m in r.moves:
        col = m.reply if isinstance(m.reply, int) and not isinstance(m.reply, bool) else None
        if col is not None and 0 <= col < 7 and heights[col] < 6:
            heights[col] += 1
        counts.append(sum(heights))
    return counts


def pages_of(journal: Path, tmp_path: Path) -> dict[str, Path]:
    out = tmp_path / "pages"
    kothkit("export", journal, "--format", "html", "--out", out, cwd=tmp_path)
    return {p.name.split("-")[-1][:12]: p for p in out.glob("*.html")}


def step_through(w: Watched, page: Path, counts: list[int], record) -> None:
    p = w.page
    p.goto(page.as_uri())
    assert p.locator("#counter").inner_text() == f"move 0 of {len(record.moves)}"
    assert p.locator(PIECES).count() == counts[0]
    for n in range(1, len(record.moves) + 1):
        p.keyboard.press("ArrowRight")
        assert p.locator("#counter").inner_text() == f"move {n} of {len(record.moves)}"
        assert p.locator(PIECES).count() == counts[n], (page.name, n)
        m = record.moves[n - 1]
        said = re.fullmatch(rf"Move {n}: {record.players[m.seat]} replied in (\d+\.\d) ms",
                            p.locator("#move-line").inner_text())
        assert said and abs(float(said.group(1)) - m.ms) <= 0.051  # JavaScript's toFixed rounds halves its own way
        if counts[n] > counts[n - 1]:
            assert p.locator("#boards .panel:first-child .last").count() == 1
    outcome = p.locator("#outcome")
    assert outcome.is_visible()
    text = outcome.inner_text()
    assert (f"Winner: {record.winner}" if record.winner else "Draw") in text and record.reason in text
    if record.verdict:
        assert f"Verdict: {record.verdict} against {record.offender}" in text
    # back and forth by the buttons, the slider and the keys
    p.click("#first")
    assert p.locator(PIECES).count() == counts[0] and not outcome.is_visible()
    p.click("#next")
    p.click("#next")
    p.click("#prev")
    assert p.locator("#counter").inner_text().startswith(f"move {max(0, min(2, len(record.moves)) - 1)} of")
    mid = len(record.moves) // 2
    p.locator("#slider").fill(str(mid))
    assert p.locator(PIECES).count() == counts[mid]
    p.keyboard.press("End")
    assert outcome.is_visible()
    p.click("#last")
    assert outcome.is_visible()
    assert w.errors == []


def check_no_network(w: Watched, pages: list[Path]) -> None:
    assert w.requests and all(u.startswith("file://") for u in w.requests), w.requests
    assert set(w.requests) <= {p.as_uri() for p in pages}, w.requests


def test_swap2_replay_pages_step_through_their_games(browser, swap2, tmp_path):
    pages = pages_of(swap2, tmp_path)
    w = Watched(browser)
    try:
        wins = 0
        for r in open_journal(swap2).records:
            step_through(w, pages[r.id[:12]], swap2_counts(r), r)
            if r.reason == "five in a row":
                wins += 1
                assert w.page.locator(".winline").count() == 1
        assert wins >= 1
        check_no_network(w, list(pages.values()))
    finally:
        w.close()


def test_classic12_replay_pages_show_faults_and_late_replies(browser, classic12, tmp_path):
    pages = pages_of(classic12, tmp_path)
    w = Watched(browser)
    try:
        for r in open_journal(classic12).records:
            step_through(w, pages[r.id[:12]], classic12_counts(r), r)
            if r.verdict == "timeout":
                assert re.search(r"Late reply \(not played\): tardy answered \d+ \d+ after \d+\.\d ms",
                                 w.page.locator("#outcome").inner_text())
        check_no_network(w, list(pages.values()))
    finally:
        w.close()


def test_connect4_pages_show_the_true_board_and_each_players_view(browser, connect4, tmp_path):
    pages = pages_of(connect4, tmp_path)
    w = Watched(browser)
    try:
        for r in open_journal(connect4).records:
            counts = connect4_counts(r)
            step_through(w, pages[r.id[:12]], counts, r)
            p = w.page
            titles = p.locator("#boards .panel .title").all_inner_texts()
            assert titles == ["the true board", f"what {r.players[0]} (X) saw", f"what {r.players[1]} (O) saw"]
            # a player sees its own discs, and never the opponent's in the taped rows
            for seat, panel in ((0, 2), (1, 3)):
                own = p.locator(f"#boards .panel:nth-child({panel}) .piece[data-piece='{'XO'[seat]}']").count()
                true_own = p.locator(f"#boards .panel:first-child .piece[data-piece='{'XO'[seat]}']").count()
                assert own == true_own
                theirs = p.locator(f"#boards .panel:nth-child({panel}) .piece[data-piece='{'OX'[seat]}']").all()
                for disc in theirs:
                    row = int(disc.get_attribute("data-cell").split(",")[0])
                    assert row in (0, 2, 4)  # rows 5, 3, 1 counted from the bottom: the untaped ones
            assert p.locator("#boards .panel:nth-child(2) .shaded").count() == 3
            if r.reason == "four in a row":
                assert p.locator("#boards .panel:first-child .winline").count() == 1
        check_no_network(w, list(pages.values()))
    finally:
        w.close()


def test_autoplay_runs_to_the_end(browser, connect4, tmp_path):
    pages = pages_of(connect4, tmp_path)
    r = max(open_journal(connect4).records, key=lambda r: len(r.moves))
    w = Watched(browser)
    try:
        w.page.goto(pages[r.id[:12]].as_uri())
        w.page.click("#play")
        from playwright.sync_api import expect

        # (the page's Content-Security-Policy forbids evaluating strings: no wait_for_function)
        expect(w.page.locator("#counter")).to_have_text(f"move {len(r.moves)} of {len(r.moves)}", timeout=30_000)
        assert w.page.locator("#outcome").is_visible()
        expect(w.page.locator("#play")).to_have_text("\u25B6 play")
    finally:
        w.close()



def test_an_exported_page_shows_every_bots_log_with_the_lines_of_the_move_shown_marked(browser, classic12, tmp_path):
    # A page made locally (kothkit export) shows all the logs: tardy's DEBUG and stderr lines
    # of its moves 4, 6 and 8, and steady's lines of after the game.
    r = next(r for r in open_journal(classic12).records if r.verdict == "timeout" and r.players == ("steady", "tardy"))
    page = pages_of(classic12, tmp_path)[r.id[:12]]
    w = Watched(browser)
    try:
        p = w.page
        p.goto(page.as_uri())
        logs = p.locator("#logs")
        assert logs.is_visible()
        assert p.locator("#logs .logname").all_inner_texts() == ["steady", "tardy"]
        tardy = p.locator("#logs .log[data-bot='tardy'] .logline")
        texts = tardy.all_inner_texts()
        assert any(re.fullmatch(r"\[move 4\] stderr: tardy stderr at turn \d+", t) for t in texts), texts
        assert any(t.startswith("[move 6] DEBUG turn") for t in texts), texts
        p.locator("#slider").fill("4")
        now = p.locator("#logs .log[data-bot='tardy'] .logline.now").all_inner_texts()
        assert now and all(t.startswith("[move 4] ") for t in now), now
        assert p.locator("#logs .log[data-bot='steady'] .logline.now").count() == 0
        assert all(t.startswith(("[move 6]", "[move 8]", "[move 9]", "[end]"))
                   for t in p.locator("#logs .log[data-bot='tardy'] .logline.later").all_inner_texts())
        p.keyboard.press("End")
        steady_now = p.locator("#logs .log[data-bot='steady'] .logline.now").all_inner_texts()
        assert "[end] stderr: steady: last PLACE" in "\n".join(steady_now), steady_now
        assert w.errors == []
    finally:
        w.close()
