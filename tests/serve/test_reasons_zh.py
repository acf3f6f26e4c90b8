"""The core's and the games' words on the site's pages in the reader's language (issue 30, item 4):
a real ``kothkit serve`` whose bots lose by a timeout, a crash and an illegal move shows each reason
in Chinese on a zh_CN page (the bot's games, a game's replay) and exactly as the journal holds it
(the CLI's English) on an English one; the game's summary on the rules page too.  The catalogs
themselves (every message translated, each game's) are checked in test_i18n.py."""

from __future__ import annotations

import html
import re
import shutil

import httpx
import pytest

from tests.serve.webserver import ROOT, Server, wait_for

BOTS = ROOT / "tests" / "bots" / "classic12"
NAME = "faults"
ZH = {"accept-language": "zh-CN,zh;q=0.9"}
EN = {"accept-language": "en-US"}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A folder challenge (public logs and reasons): a steady bot against three misbehaving ones."""
    d = tmp_path_factory.mktemp("reasons")
    folder = d / NAME
    (folder / "bots").mkdir(parents=True)
    for b in ("steady", "slow", "crash", "occupied"):
        shutil.copytree(BOTS / b, folder / "bots" / b)
    (folder / "kothkit.toml").write_text(
        'game = "gomoku_classic12"\nbots = ["bots"]\nrounds = 1\nseed = 5\n'
        '[limits]\nmove_time = 1.0\nfirst_reply_time = 2.0\n'
        '[serve]\nkind = "folder"\ntitle = "五子棋 faults"\n')
    server = Server([folder], d / "state", d, jobs=2)
    try:
        with httpx.Client(base_url=server.url, timeout=30) as c:
            def played():
                rows = c.get(f"/c/{NAME}/standings.json").json()["rows"]
                return len(rows) == 4 and all(r["games"] == 6 for r in rows)
            wait_for(played, 240, message="the four bots' round robin")
        yield server
    finally:
        assert server.stop() == 0, server.text


def _games(server, bot: str, headers: dict) -> str:
    r = httpx.get(f"{server.url}/c/{NAME}/bot/{bot}", headers=headers, timeout=30)
    assert r.status_code == 200
    return html.unescape(r.text)


@pytest.mark.parametrize(("bot", "english", "chinese"), [
    ("slow", "timeout: no reply within 1 s", "超时：1 秒内没有回复"),
    ("crash", "crash: killed by SIGSEGV", "崩溃：被 SIGSEGV 信号终止"),
    ("occupied", "illegal-move: (", "违规着法：("),
])
def test_a_fault_reads_in_the_pages_language(site, bot, english, chinese):
    zh, en = _games(site, bot, ZH), _games(site, bot, EN)
    assert chinese in zh, zh[-3000:]
    assert english not in zh
    assert english in en and chinese not in en
    if bot == "occupied":
        assert re.search(r"违规着法：\(\d+, \d+\) 已有棋子", zh), zh[-3000:]
        assert re.search(r"illegal-move: \(\d+, \d+\) is occupied", en)


def test_the_replay_of_a_fault_in_chinese(site):
    games = _games(site, "slow", ZH)
    gid = re.search(rf'/c/{NAME}/game/([0-9a-f]+)/replay', games) or re.search(rf'/c/{NAME}/game/([0-9a-f]+)', games)
    assert gid, games[-2000:]
    page = httpx.get(f"{site.url}/c/{NAME}/game/{gid.group(1)}/replay", headers=ZH, timeout=30).text
    data = page[page.index('"outcome"'):]
    assert '"reason":"超时：1 秒内没有回复"' in data and '"verdict":"超时"' in data, data[:500]
    # The boards' titles are the game's words: in Chinese too.
    assert '"title":"黑方：' in page
    english = httpx.get(f"{site.url}/c/{NAME}/game/{gid.group(1)}/replay", headers=EN, timeout=30).text
    assert '"reason":"timeout: no reply within 1 s"' in english and '"title":"black: ' in english


def test_the_games_summary_on_the_rules_page(site):
    zh = html.unescape(httpx.get(f"{site.url}/c/{NAME}/about", headers=ZH, timeout=30).text)
    assert "课程的 12×12 五子棋" in zh
    en = html.unescape(httpx.get(f"{site.url}/c/{NAME}/about", headers=EN, timeout=30).text)
    assert "The course's 12x12 Gomoku" in en
