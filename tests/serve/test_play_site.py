"""The Play page of ``kothkit serve`` (kothkit.serve.playsite): a signed-in student plays whole games
in the system's Chromium against a bundled bot and against their own latest brain, by clicking on
the board (a mistake explained and asked again), sees the result and opens the game's replay; and
the room's bounds, with real bots: games per person per hour, games at once, an idle game abandoned
and its bot reaped."""

from __future__ import annotations

import itertools
import os
import time

import pytest

from kothkit.plugins import get_game
from kothkit.serve.playsite import Opponent, PlayRoom, Refused
from tests.play.test_play_web import click_through
from tests.serve.webserver import Server, brain, challenge, csrf_of, roster, submit, user, wait_for

NAME = "g12"


@pytest.fixture
def served(tmp_path):
    ch = challenge(tmp_path / NAME, min_interval=0)
    state = tmp_path / "state"
    roster(state, tmp_path, ["20230001", "20230002"])
    server = Server([ch], state, tmp_path)
    try:
        yield server
    finally:
        assert server.stop() == 0, server.text


def _play_one(page, url: str, opponent_prefix: str, seat: str, messages: list[str]) -> str:
    page.goto(url)
    value = page.eval_on_selector(
        "#opponent", "(s, p) => [...s.options].map(o => o.value).find(v => v.startsWith(p))", opponent_prefix)
    assert value, page.content()[-2000:]
    page.select_option("#opponent", value)
    page.select_option("#seat", seat)
    page.click("#start")
    page.wait_for_url("**/play/*")
    # An opening stone first (occupied: explained, asked again), then the cells in order.
    cells = itertools.chain([(5, 5)], ((r, c) for r in range(12) for c in range(12)))
    return click_through(page, lambda asks: ['rect.target[data-cell="{},{}"]'.format(*next(cells))], messages)


def test_a_student_plays_a_bundled_bot_and_their_own_brain(browser, served):
    server = served
    with user(server, "20230001", "Ann") as c:
        assert submit(c, NAME, brain("ann")).status_code == 303
        wait_for(lambda: 'data-status="done"' in c.get(f"/c/{NAME}/mine").text, 180, message="the brain in")
        cookies = [{"name": k, "value": v, "url": server.url} for k, v in c.cookies.items()]
    context = browser.new_context()
    context.add_cookies(cookies)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and errors.append("console: " + m.text))
    try:
        play = f"{server.url}/c/{NAME}/play"
        page.goto(f"{server.url}/c/{NAME}/")
        page.click("#play-link")
        assert page.url == play
        labels = page.eval_on_selector("#opponent", "s => [...s.options].map(o => o.textContent)")
        assert "threat (bundled bot)" in labels and "your latest brain" in labels, labels

        # Against the bundled bot, opening the game.
        messages: list[str] = []
        result = _play_one(page, play, "bundled:threat", "0", messages)
        live = page.url.removeprefix(server.url)
        assert result.startswith("Result: "), result
        assert any("(5, 5) is occupied" in m for m in messages), messages
        assert "threat" in page.text_content("#log")
        page.wait_for_selector("#replay:not(.hidden)", timeout=30_000)
        page.click("#replay")
        page.wait_for_url("**/played/*")
        assert "gomoku_classic12" in page.title()
        assert page.locator("svg.board").count() >= 1

        # Against the student's own latest brain, answering.
        messages = []
        result = _play_one(page, play, "brain:", "1", messages)
        assert result.startswith("Result: "), result
        assert "your brain" in page.text_content("#log") and "20230001" not in page.text_content("#log")
        page.wait_for_selector("#replay:not(.hidden)", timeout=30_000)
        page.click("#replay")
        page.wait_for_url("**/played/*")
        assert "20230001" not in page.content() and "Ann" in page.title()
        page.go_back()
        page.click("#new-game")
        assert page.url == play
        assert page.locator("#played tbody tr").count() == 2
        assert "your latest brain" not in page.text_content("#played")  # nicknames, never logins
        assert page.locator("#played a.replay").count() == 2
    finally:
        context.close()
    assert not errors, errors

    # Another student sees neither the live games nor the replays of Ann's games, and cannot move in
    # them; Ann's own move without the form's token is refused.
    with user(server, "20230002", "Bob") as bob:
        page_text = bob.get(f"/c/{NAME}/play").text
        assert "played/" not in page_text
        assert "brain:" not in page_text and "Ann" not in page_text  # another's brain: not without play_all
        assert bob.get(f"{live}/state").status_code == 404
        assert bob.post(f"{live}/move", data={"csrf": csrf_of(page_text), "text": "1 1"}).status_code == 404
        with user(server, "20230001", "Ann") as ann:
            rid = ann.get(f"/c/{NAME}/play").text.split("/played/")[1].split('"')[0]
            assert ann.get(f"{live}/state").json()["over"] is True
            assert ann.post(f"{live}/move", data={"text": "1 1"}).status_code == 403
            # A game in progress when the server stops: the stop is clean (PlayRoom.close ends it; its
            # bot reaped: test_the_rooms_bounds).
            # Started by a Chinese reader: the game's questions and a mistake explained in Chinese.
            zh = {"accept-language": "zh-CN,zh;q=0.9"}
            form = ann.get(f"/c/{NAME}/play", headers=zh).text
            r = ann.post(f"/c/{NAME}/play", data={"csrf": csrf_of(form), "opponent": "bundled:threat", "seat": "1"},
                         headers=zh)
            assert r.status_code == 303, r.text[-1000:]
            state = wait_for(lambda: (st := ann.get(r.headers["location"] + "/state").json()).get("waiting") and st,
                             60, message="the bot's first move")
            assert state["asks"] == "轮到你（O 白）：输入“行 列”，例如 5 6", state
            assert state["picture"][0]["title"].startswith("黑方：threat，白方："), state["picture"]
            assert ann.post(r.headers["location"] + "/move", data={"csrf": csrf_of(form), "text": "5 5"}).status_code == 200
            state = wait_for(lambda: (st := ann.get(r.headers["location"] + "/state").json()).get("message") and st,
                             60, message="the mistake explained")
            assert state["message"].startswith("不允许：(5, 5) 已有棋子\n输入一个空位"), state["message"]
        assert bob.get(f"/c/{NAME}/played/{rid}").status_code == 403
    assert server.stop() == 0, server.text
    assert "Traceback" not in server.text, server.text
    # Nothing of the server's process group is left running: at most the dead, for init to reap.
    # (A process killed as the host stopped may still be on its way out, its memory already gone:
    # it is given a few seconds to end.)
    wait_for(lambda: not _alive_in_group(server.proc.pid), 10, message="the server's processes ended")


def _alive_in_group(pgid: int) -> list[str]:
    """The command lines of the live (not zombie) processes of process group ``pgid``."""
    alive = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                text = open(f"/proc/{d}/stat").read()
                fields = text[text.rindex(")") + 2:].split()
                if int(fields[2]) == pgid and fields[0] != "Z":
                    alive.append(open(f"/proc/{d}/cmdline", "rb").read()[:200].decode(errors="replace"))
            except OSError:
                pass
    return alive


def _wait_state(g, key: str, timeout: float = 60) -> dict:
    until = time.monotonic() + timeout
    while time.monotonic() < until:
        with g.seat.lock:
            st = dict(g.seat.state)
        if st.get(key):
            return st
        time.sleep(0.05)
    raise AssertionError(f"no {key!r} in the seat's state within {timeout} s: {g.seat.state}")


def _bots() -> dict[int, int]:
    """pid -> niceness of every bot (a ``brain`` process) under this process (from /proc)."""
    stats = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                text = open(f"/proc/{d}/stat").read()
            except OSError:
                continue
            fields = text[text.rindex(")") + 2:].split()
            stats[int(d)] = (int(fields[1]), int(fields[16]))  # ppid, nice
    out, todo = {}, [os.getpid()]
    while todo:
        parent = todo.pop()
        for pid, (ppid, nice) in stats.items():
            if ppid == parent and pid not in out:
                out[pid] = nice
                todo.append(pid)
    found = {}
    for pid, nice in out.items():
        try:
            if b"brain" in open(f"/proc/{pid}/cmdline", "rb").read():
                found[pid] = nice
        except OSError:
            pass
    return found


def test_the_rooms_bounds(tmp_path):
    info = get_game("gomoku_classic12")
    room = PlayRoom(tmp_path, max_live=1, idle=2.0, per_hour=2)
    threat = Opponent(key="bundled:threat", label="threat", spec=next(b for b in room.bundled(info) if b.name == "threat"))
    try:
        g = room.start("g12", info, info.limits, dict(info.rules), "ann", threat, 1, "/r/{id}")
        _wait_state(g, "waiting")  # the bot opened: it is the person's turn
        # Its bot runs nicer than this process (below the ladder's games).
        bots = _bots()
        assert bots and all(n >= min(19, os.getpriority(os.PRIO_PROCESS, 0) + 10) for n in bots.values()), bots
        with pytest.raises(Refused) as full:
            room.start("g12", info, info.limits, dict(info.rules), "bob", threat, 0, "/r/{id}")
        assert full.value.status == 503 and "tables are taken" in full.value.message
        # Nobody moves: the game is abandoned after its idle time, nothing stored, its bot reaped.
        st = _wait_state(g, "abandoned", 30)
        assert st["over"] and "waited too long" in st["result"]
        g.thread.join(30)
        assert not g.thread.is_alive() and room.played("g12", "ann") == []
        assert not set(bots) & set(_bots())
        # A second game of Ann's is allowed; a third within the hour is not.
        g2 = room.start("g12", info, info.limits, dict(info.rules), "ann", threat, 1, "/r/{id}")
        with pytest.raises(Refused) as many:
            room.start("g12", info, info.limits, dict(info.rules), "ann", threat, 1, "/r/{id}")
        assert many.value.status == 429 and "2 games in the last hour" in many.value.message
        assert "retry-after" in many.value.headers
    finally:
        room.close()
    # Closing the room ends the game in progress: its thread done, its bot reaped.
    g2.thread.join(30)
    assert not g2.thread.is_alive() and g2.seat.state["abandoned"]
    assert not _bots()
