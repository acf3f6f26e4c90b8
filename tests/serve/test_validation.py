"""The check before the ladder (kothkit.serve.validation) against a real ``kothkit serve``: a brain
that built plays a validation pair against the challenge's reference bot first.  A brain that
cannot answer START fails it, its page (in Chromium) shows the fault and its log, and, with
``check_failed_replaces = false``, the author's previous brain stays in the standings."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from kothkit.serve import settings as serve_settings
from kothkit.serve.settings import SettingsError
from tests.serve.webserver import Server, brain, challenge, roster, submit, user, wait_for

NAME = "g12"
#: A brain that dies before it answers START.
NO_START = b"import sys\nsys.stderr.write('no-start-here\\n')\nsys.exit(3)\n"


#: The same challenge where a brain that fails the check still replaces the previous one (the default).
REPLACES = "g12r"


def _checked(tmp_path) -> Server:
    folders = []
    for name, replaces in ((NAME, "false"), (REPLACES, "true")):
        ch = challenge(tmp_path / name, min_interval=0)
        with open(ch / "kothkit.toml", "a") as f:
            f.write(f'check = true\ncheck_against = "threat"\ncheck_failed_replaces = {replaces}\n')
        folders.append(ch)
    state = tmp_path / "state"
    roster(state, tmp_path, ["20230001"])
    return Server(folders, state, tmp_path)


def _status(c, sid: int, name: str = NAME) -> str:
    m = re.search(r'id="status">([^<]*)<', c.get(f"/c/{name}/submission/{sid}").text)
    return m.group(1) if m else ""


def _sid(response) -> int:
    assert response.status_code == 303, response.text[-1000:]
    return int(response.headers["location"].rsplit("=", 1)[1])


def test_a_brain_that_cannot_answer_start_fails_the_check(browser, tmp_path):
    server = _checked(tmp_path)
    page = browser.new_page()
    try:
        with user(server, "20230001", "Ann") as c:
            good = _sid(submit(c, NAME, brain("ann")))
            wait_for(lambda: _status(c, good) in ("playing", "done"), 180, message="the good brain entered")
            text = c.get(f"/c/{NAME}/submission/{good}").text
            assert 'data-ok="yes"' in text and "threat" in text, text[-3000:]
            bad = _sid(submit(c, NAME, NO_START, "brain.py", "python3"))
            wait_for(lambda: _status(c, bad) == "check failed", 180, message="the broken brain's check")
            # For a Chinese reader: the fault, the games' lines, in Chinese (the bot's own words as they are).
            zh = html.unescape(c.get(f"/c/{NAME}/submission/{bad}", headers={"accept-language": "zh-CN"}).text)
            fault = re.search(r'id="check-fault">([^<]*)<', zh).group(1)
            assert fault.startswith("崩溃：以退出码 3 退出"), fault
            assert "（座位 0）对 threat（座位 1）：threat 获胜：崩溃：" in zh, zh[-3000:]
            # Not entered: the previous brain is still the author's, in the standings.
            assert _status(c, good) in ("playing", "done")
            board = c.get(f"/c/{NAME}/standings.json").json()
            assert [r["name"] for r in board["rows"]] == ["Ann"], board
            # With check_failed_replaces (the default), it fails and still replaces the previous brain.
            first = _sid(submit(c, REPLACES, brain("ann")))
            wait_for(lambda: _status(c, first, REPLACES) in ("playing", "done"), 180, message="a first brain")
            failing = _sid(submit(c, REPLACES, NO_START, "brain.py", "python3"))
            wait_for(lambda: _status(c, failing, REPLACES) in ("playing", "done"), 180, message="entered all the same")
            assert _status(c, first, REPLACES) == "replaced"
            assert 'data-ok="no"' in c.get(f"/c/{REPLACES}/submission/{failing}").text
            cookies = [{"name": k, "value": v, "url": server.url} for k, v in c.cookies.items()]
        page.context.add_cookies(cookies)
        page.goto(f"{server.url}/c/{NAME}/submission/{bad}")
        assert page.get_attribute("#check", "data-ok") == "no"
        fault = page.text_content("#check-fault")
        assert fault and ("START" in fault or "crash" in fault), fault
        assert "no-start-here" in page.text_content("#check-log")
        page.goto(f"{server.url}/c/{NAME}/mine")
        assert page.get_attribute('#submissions tbody tr[data-status="check-failed"]', "data-status")
        page.click("#submissions a.check-failed")
        assert page.url.endswith(f"/submission/{bad}")
        # The checks (a brain's log each) are the host's user's alone, as the journals.
        checks = tmp_path / "state" / "checks"
        assert checks.stat().st_mode & 0o777 == 0o700
        assert {f.stat().st_mode & 0o777 for f in checks.iterdir()} == {0o600}
    finally:
        page.close()
        assert server.stop() == 0, server.text


def test_check_against_must_be_a_bundled_bot(tmp_path):
    course = serve_settings.load(Path(__file__).resolve().parents[2] / "challenges" / "course12")
    assert course.check and course.check_against == "threat" and course.check_failed_replaces
    ch = challenge(tmp_path / NAME)
    with open(ch / "kothkit.toml", "a") as f:
        f.write('check = true\ncheck_against = "nobody"\n')
    from kothkit.serve.host import Host

    with pytest.raises(SettingsError, match=r"kothkit.toml: \[serve\] check_against: .* no bot 'nobody'"):
        Host([ch], tmp_path / "state")
    (ch / "kothkit.toml").write_text((ch / "kothkit.toml").read_text().replace('check = true', 'check = "yes"'))
    with pytest.raises(SettingsError, match=r"kothkit.toml:\d+: \[serve\] check must be true or false"):
        serve_settings.load(ch)


def test_the_checks_in_a_worker_process(tmp_path):
    """validation.run as a host's slot runs it: a brain that never answers START fails the pair
    against the reference bot, and (no such reference bot) kothkit check's scenarios too, with the
    fault; a steady brain passes the pair."""
    from kothkit.plugins import get_game
    from kothkit.serve import validation

    info = get_game("gomoku_classic12")
    limits = info.limits.replace(first_reply_time=1.0, move_time=1.0)
    bots = Path(__file__).resolve().parents[1] / "bots" / "classic12"
    ok, games, fault, log = validation.run(str(bots / "no_ok"), info.name, limits, dict(info.rules), "threat", 7)
    assert not ok and len(games) == 1 and "timeout" in fault, (games, fault)
    assert "last replies" in log
    ok, games, fault, log = validation.run(str(bots / "no_ok"), info.name, limits, dict(info.rules), "nobody", 7)
    # Explained as kothkit check explains it.
    assert not ok and any(g.startswith("fault: ") for g in games) and "No reply within 1 s to 'START" in fault, (games, fault)
    ok, games, fault, log = validation.run(str(bots / "steady"), info.name, limits, dict(info.rules), "threat", 7)
    assert ok and len(games) == 2 and fault == "" and all("threat" in g for g in games), games
