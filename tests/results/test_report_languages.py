"""The public report's index and bot pages in the site's languages: the report an admin downloads
(``kothkit.serve.publish.report_zip``, made in the request's language) opened in a real headless
Chromium in Simplified Chinese (nothing English left but what users typed, code words and names,
and a bot's own quoted output; user-typed names still escaped) and in English (as before)."""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import Path

from kothkit.results.archive import open_journal
from kothkit.serve import i18n
from kothkit.serve.publish import report_zip
from tests.results.browser import Watched
from tests.results.conftest import ROOT, kothkit

EVIL = "<script>alert(1)</script>\"x' onmouseover='alert(2)"
#: The public names the report gives classic12's bots: nicknames users typed (one of them hostile).
NAMES = {"steady": "小明", "tardy": EVIL, "malformed": "李雷", "out_of_turn": "Mallory"}
#: Latin words a Chinese page may hold: names (Elo, Bradley–Terry), the protocol's commands the
#: game's summary names, the time zone.
KEPT = {"Elo", "Bradley", "Terry", "UTC", "START", "PLACE", "TURN", "END", "MiB"}  # (MiB: the catalogs keep the unit)
CJK = re.compile(r"[\u4e00-\u9fff]")


def _site(journal: Path, lang: str, dest: Path, rename: dict[str, str]) -> Path:
    """The report ``lang``'s admin downloads, unpacked into ``dest``."""
    with i18n.use(lang):
        data = report_zip(open_journal(journal), rename, "r", translated=True)
    zipfile.ZipFile(io.BytesIO(data)).extractall(dest)
    return dest / "r"


def _english_left(text: str) -> set[str]:
    """The Latin words of a page's text once the names users typed, the game's name and the bots'
    own quoted output ('...' in a reason) are taken out, less :data:`KEPT`."""
    for name in (*NAMES.values(), "gomoku_classic12"):
        text = text.replace(name, " ")
    text = re.sub(r"'[^'\n]*'", " ", text)
    return set(re.findall(r"[A-Za-z]{2,}", text)) - KEPT


def test_the_report_in_chinese_has_no_english_left_and_escapes_names(browser, classic12, tmp_path):
    site = _site(classic12, "zh_CN", tmp_path / "zh", NAMES)
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html") if "games/" not in p.as_posix())
    assert pages == ["bots/Mallory.html", "bots/_script_alert_1___script__x__onmouseover__alert_2_.html",
                     "bots/小明.html", "bots/李雷.html", "index.html"]
    for name in pages:
        source = (site / name).read_text(encoding="utf-8")
        assert source.startswith('<!DOCTYPE html>\n<html lang="zh-CN">'), name
        assert "<script>alert" not in source and "&lt;script&gt;alert(1)&lt;/script&gt;" in source, name
    w = Watched(browser)
    dialogs: list[str] = []
    w.page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    try:
        p = w.page
        p.goto((site / "index.html").as_uri())
        text = p.locator("body").inner_text()
        assert _english_left(text) == set(), text
        assert p.title() == "gomoku_classic12 结果"
        # The game's summary is said in Chinese (its catalog's), the heading under it too.
        assert CJK.search(p.locator("h1").inner_text()), p.locator("h1").inner_text()
        assert re.fullmatch(r"gomoku_classic12：\d{4}-\d\d-\d\d \d\d:\d\d UTC 的排名，种子 5，4 个程序共下了 12 局",
                            p.locator("h1 + p").inner_text())
        heads = p.locator("table").first.locator("tr").first.inner_text().split("\t")
        assert heads[:10] == ["#", "程序", "比赛积分", "比赛胜", "平", "负", "对局胜", "平", "负", "局数"], heads
        rows = p.locator("table").first.locator("tr").all_inner_texts()[1:]
        assert [r.split("\t")[1] for r in rows] == ["小明", EVIL, "李雷", "Mallory"]  # a name is shown as typed
        faults = p.locator("xpath=//h2[text()='故障']/following-sibling::table[1]").locator("tr").all_inner_texts()
        assert faults[0].split("\t") == ["程序", "判定", "判负局数"]
        assert {tuple(f.split("\t")) for f in faults[1:]} == {("李雷", "无效回复", "5"), ("Mallory", "不按轮次输出", "5"),
                                                             (EVIL, "超时", "2")}
        assert "判负：超时：0.3 秒内没有回复" in text and "对局胜" in text
        # The hostile nickname's page: Chinese words, its faults by verdict, its games.
        p.locator("table").first.locator("tr").nth(2).locator("a").click()
        assert p.url.endswith("_script_alert_1___script__x__onmouseover__alert_2_.html")
        text = p.locator("body").inner_text()
        assert _english_left(text) == set(), text
        assert p.locator("h1").inner_text() == EVIL
        assert re.search(r"第 2 名（共 4 个程序），6 局，\d+ 次回复", text), text
        assert "回复用时" in text and "占 90 秒预算的比例" in text and re.search(r"超时\t2", text), text
        assert p.locator("#nav").inner_text() == "← gomoku_classic12 排行榜"
        # A replay page's navigation back to the report is in Chinese too.
        p.locator("a[href^='../games/']").first.click()
        assert p.locator("#nav a").first.inner_text() == "gomoku_classic12 排行榜"
        assert p.locator("html").get_attribute("lang") == "zh-CN"
        assert dialogs == [] and w.errors == [] and all(u.startswith("file://") for u in w.requests)
    finally:
        w.close()


def test_the_report_in_english_is_as_before(browser, classic12, tmp_path):
    """English: the words of ``kothkit report``'s pages; the Chinese names users typed stay as they are."""
    site = _site(classic12, "en", tmp_path / "en", NAMES)
    w = Watched(browser)
    try:
        p = w.page
        p.goto((site / "index.html").as_uri())
        assert p.locator("html").get_attribute("lang") == "en" and p.title() == "gomoku_classic12 results"
        text = p.locator("body").inner_text()
        assert "Leaderboard" in text and "Crosstable" in text and "Likelihood of superiority" in text
        assert re.search(r"gomoku_classic12: standings of .* UTC, seed 5, 12 games played by 4 bots", text), text
        assert not CJK.search(text.replace("小明", "").replace("李雷", "")), text
        assert p.locator("table").first.locator("tr").first.inner_text().split("\t")[:3] == ["#", "bot", "match points"]
        p.locator("a[href='bots/小明.html']").first.click()
        text = p.locator("body").inner_text()
        assert re.search(r"rank 1 of 4, 6 games, \d+ replies", text) and "95th percentile" in text, text
        assert w.errors == []
    finally:
        w.close()


def test_a_table_games_report_in_chinese(tmp_path):
    """A game of more than two seats (lowbid, one round): its places and points, the seat that left
    by a fault and the openskill note in Chinese (lowbid has no catalog: its own reasons stay English)."""
    bots = ROOT / "plugins" / "lowbid" / "bots"
    crasher = tmp_path / "crasher"
    crasher.mkdir()
    (crasher / "bot.py").write_text("import sys\nsys.exit(3)\n")
    (crasher / "bot.toml").write_text('name = "crasher"\ncommand = ["python3", "bot.py"]\n')
    kothkit("run", "lowbid", "--bots", bots / "one", "--bots", bots / "tracker", "--bots", crasher, "--rounds", "1",
            "--rules", "rounds=3", "--seed", "4", "--db", tmp_path / "j.sqlite", "-q", cwd=tmp_path)
    site = _site(tmp_path / "j.sqlite", "zh_CN", tmp_path / "zh", {"one": "甲", "tracker": "乙", "crasher": "丙"})
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "评分：openskill（Plackett-Luce）：按每局中每个座位的名次逐局计算" in index
    assert re.search(r"\(第 \d 名，-?\d+ 分\)", index) and "丙 离场：崩溃" in index, index
    assert "在两者都参加的对局中，行中的程序名次高于、等于、低于列中程序的次数" in index
    assert "<th>平均 ± 误差</th><th>评分（μ ± σ）</th>" in index
    assert "<th>程序（按座位）</th>" in index and "先行者" not in index  # (nobody opens at a table)


def test_the_ratings_notes_are_said_in_chinese():
    """Each note kothkit.store.ratings writes (English, its values in it) is fitted to a message
    of the catalogs, so a Chinese page says it in Chinese (a note the code changed would not be)."""
    from kothkit.results.site import Words
    from kothkit.store.ratings import rate

    words = Words(i18n.languages()["zh_CN"].translations, None, "zh_CN")
    notes = [*rate([], ["a"]).notes, *rate([], ["a", "b"]).notes, *rate([(("a", "b"), "a")], ["a", "b", "c"]).notes,
             *rate([(("a", "b"), "a"), (("c", "d"), "c")]).notes, *rate([(("a", "b"), "a")]).notes]
    said = [words.note(n) for n in notes]
    assert said[:3] == ["评分至少需要两个程序", "未给出评分：a, b 没有下过一局", "未给出评分：c 没有下过一局"], said
    assert "未给出评分：有些程序之间从未直接或间接交手" in said and "成对的对局太少，无法估计误差" in said, (notes, said)
