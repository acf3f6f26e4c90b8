"""A course's pages in its reader's language, against a real ``kothkit serve``: the challenge's title
in each language (``[serve] titles``), every time in the challenge's time zone beside its deadline,
a submission refused outside ``opens``/``closes`` in Chinese, language labels (not ids) in the tables,
the status column in view on a 375 px phone, a file of another language's extension refused before
it counts against the rate limits, and a Play game in Chinese: both sides' moves, the seats named
"you" (never a login), the result."""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import pytest

from kothkit.serve import i18n
from kothkit.serve.feedback import status_label
from kothkit.serve.settings import SettingsError, load
from tests.serve.webserver import Server, brain, challenge, client, play, roster, sign_in, submit, user, wait_for

OPEN, CLOSED = "wopen", "wclosed"
ZH = {"accept-language": "zh-CN,zh;q=0.9"}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("words")
    extra = 'titles = { zh_CN = "五子棋课程赛" }\n'
    open_ = challenge(tmp / OPEN, min_interval=60, title="Gomoku course")
    closed = challenge(tmp / CLOSED, title="Old cup")
    for ch, line in ((open_, 'closes = 2099-01-01T23:59:00+08:00\ncheck = true\n' + extra),
                     (closed, "closes = 2001-01-01T00:00:00+08:00\n")):
        (ch / "kothkit.toml").write_text((ch / "kothkit.toml").read_text() + line)
    state = tmp / "state"
    roster(state, tmp, ["20230001", "20230002"])
    server = Server([open_, closed], state, tmp)
    try:
        yield server
    finally:
        assert server.stop() == 0, server.text


def test_titles_and_time_zones_are_checked_where_they_are_read(tmp_path):
    ch = challenge(tmp_path / "a")
    toml = ch / "kothkit.toml"
    base = toml.read_text()
    toml.write_text(base + 'titles = { zh_CN = " 五子棋 " }\ntimezone = "Asia/Shanghai"\n')
    s = load(ch)
    assert s.titles == (("zh_CN", "五子棋"),) and str(s.zone()) == "Asia/Shanghai"
    toml.write_text(base + "closes = 2026-05-31T23:59:00+08:00\n")
    assert load(ch).zone().utcoffset(None).total_seconds() == 8 * 3600  # the deadline's zone
    assert load(challenge(tmp_path / "b")).zone() is datetime.UTC
    for bad, why in (('titles = { fr = "x" }', "not one of the site's languages"),
                     ('titles = "x"', "titles must be a table"),
                     ('timezone = "Mars/Olympus"', "timezone must be the name of a time zone")):
        toml.write_text(base + bad + "\n")
        with pytest.raises(SettingsError, match=rf"kothkit.toml:\d+: \[serve\] .*{why}"):
            load(ch)


def test_a_time_is_written_in_the_pages_zone_and_named():
    t = 1_764_115_200.0  # 2025-11-26 00:00:00 UTC
    with i18n.use("zh_CN"), i18n.in_zone(datetime.timezone(datetime.timedelta(hours=8))):
        assert i18n.when(t) == "2025年11月26日 08:00:00 +08:00"
    with i18n.use("en"):
        assert i18n.when(t).endswith("12:00:00\u202fAM UTC")
    with i18n.use("zh_CN"):
        assert status_label("disabled") == "已停用" and status_label("active") != "active"


def test_the_pages_in_chinese_title_times_refusals_and_languages(served):
    with user(served, "20230001", "小明") as c:
        c.headers.update(ZH)
        # The title in the reader's language; English readers get the title.
        assert "<h1>五子棋课程赛</h1>" in c.get(f"/c/{OPEN}/").text
        assert "<h1>Gomoku course</h1>" in c.get(f"/c/{OPEN}/", headers={"accept-language": "en"}).text
        # A file of another of the challenge's languages: refused, and not counted (the next, right
        # away, is taken although the challenge takes one a minute).
        r = submit(c, OPEN, brain("a"), filename="brain.cpp", language="c11")
        assert r.status_code == 400 and "C11" in r.text and ".cpp" in r.text and "未保存任何内容" in r.text, r.text[-800:]
        assert submit(c, OPEN, brain("a"), filename="mine.c", language="c11").status_code == 303
        # Outside opens/closes: refused in Chinese, with the date in the challenge's zone.
        r = submit(c, CLOSED, brain("a"))
        assert r.status_code == 400 and "现在不接受提交：" in r.text and "2001-01-01 00:00+08:00" in r.text, r.text[-800:]
        mine = c.get(f"/c/{OPEN}/mine").text
        # Times in the deadline's zone (+08:00), not UTC; the language by its label; the status
        # right after the number.
        assert "2099-01-01 23:59+08:00" in c.get("/").text  # (the deadline, where the list of challenges says it)
        times = re.findall(r"<td>(\d{4}年[^<]*)</td>", mine)
        assert times and all(t.endswith("+08:00") for t in times), times
        assert 'class="language" title="C11 (gcc -O2 -std=c11)">C11</td>' in mine
        assert re.search(r"<tr><th>#</th><th>状态</th>", mine), mine
        assert "UTC" not in c.get(f"/c/{OPEN}/submissions").text.split("<main", 1)[1]
        wait_for(lambda: '"latest":"' in c.get(f"/c/{OPEN}/standings.json").text, 60, message="a standing")
        assert c.get(f"/c/{OPEN}/standings.json").json()["rows"][0]["latest"].endswith("+08:00")


def test_my_submissions_status_is_in_view_on_a_phone(browser, served):
    with user(served, "20230002", "Bob") as c:
        assert submit(c, OPEN, brain("b")).status_code == 303
        cookies = [{"name": k, "value": v, "url": served.url} for k, v in c.cookies.items()]
    context = browser.new_context(locale="zh-CN", viewport={"width": 375, "height": 800})
    context.add_cookies(cookies)
    try:
        page = context.new_page()
        page.goto(f"{served.url}/c/{OPEN}/mine")
        page.wait_for_selector("#submissions tbody td.status")
        # (in one look: the page swaps its table's rows in as the brain's status changes)
        right, text = page.evaluate("""() => { const td = document.querySelector('#submissions tbody td.status');
                                               return [td.getBoundingClientRect().right, td.innerText]; }""")
        assert 0 < right <= 375 and text.strip(), (right, text)
    finally:
        context.close()


def test_a_play_game_in_chinese_lists_both_sides_moves_and_never_a_login(served):
    with client(served) as c:
        c.headers.update(ZH)
        if sign_in(c, "20230001", "a-new-password").status_code != 303:
            pytest.fail("20230001 is not ready")
        _live, st, replay = play(c, OPEN, "threat")
        text = repr(st)
        assert "20230001" not in text, text[:2000]
        log = st["log"]
        assert any(line.startswith("你 下了 ") for line in log), log
        assert any(line.startswith("threat 下了 ") and "秒）" in line for line in log), log
        assert not any(re.search(r"[A-Za-z]{3,}", line.replace("threat", "")) for line in log), log
        assert st["picture"][0]["title"] in ("黑方：你，白方：threat", "黑方：threat，白方：你")
        assert re.match(r"(你赢了|你输了|平局)：", st["result"]), st["result"]
        page = c.get(f"/c/{OPEN}/play").text
        assert re.search(r"<td>(你赢了|你输了|平局)：", page), page[-2000:]
        # Its replay is known by its opponent and date, in the challenge's zone; never "game 0".
        shown = c.get(replay).text
        title = re.search(r"<title>([^<]*)</title>", shown).group(1)
        assert re.fullmatch(r"gomoku_classic12：你对 threat，\d{4}年.* \+08:00", title), title


def test_a_report_names_a_brains_page_by_its_nickname_in_any_script():
    from kothkit.results.site import _Names

    names = _Names()
    assert names("小明") == "小明.html"  # (was "__.html": a Chinese nickname lost)
    assert names("张 三/..") == "张_三_.html" and names("../x") == "_x.html"
    assert names("小明") == "小明.html" and names("小\u660e") == "小明.html"
    assert names("Ｂob") != names("小明")


def test_the_admin_logs_words_are_in_the_readers_language():
    with i18n.use("zh_CN"):
        assert i18n.admin_text("from /srv/roster.csv; 2 skipped") == "来自 /srv/roster.csv；跳过 2 个"
        assert i18n.admin_text("course12 submission 7") == "course12 的提交 7"
        assert i18n.admin_text("20230001") == "20230001"  # a login is a login
    with i18n.use("en"):
        assert i18n.admin_text("course12 submission 7") == "course12 submission 7"


def test_a_failed_builds_own_lines_are_in_the_readers_language():
    out = ("build failed (gcc -O2 -std=c11 -o brain brain.c -lm exited with 1):\n"
           "brain.c:1:18: error: unknown type name 'this'\n[... 12 more bytes of build output dropped]")
    with i18n.use("zh_CN"):
        assert i18n.build_output(out) == ("编译失败（gcc -O2 -std=c11 -o brain brain.c -lm 以退出码 1 结束）：\n"
                                          "brain.c:1:18: error: unknown type name 'this'\n[…… 另有 12 字节编译输出被丢弃]")
        assert i18n.build_output("the build left no brain to run") == "编译没有生成可运行的程序"
        assert i18n.build_output("gcc says: no") == "gcc says: no"  # the compiler's words are its own
    with i18n.use("en"):
        assert i18n.build_output(out) == out


def test_the_check_before_the_ladder_names_the_brain_never_by_its_login(served):
    with user(served, "20230001", "小明") as c:
        c.headers.update(ZH)
        sid = wait_for(lambda: re.findall(r'<tr data-id="(\d+)" data-status="(?!queued|building|checking)',
                                          c.get(f"/c/{OPEN}/mine").text), 120, message="a checked brain")[0]
        page = c.get(f"/c/{OPEN}/submission/{sid}").text
        games = re.search(r'<ul id="check-games">(.*?)</ul>', page, re.S).group(1)
        assert "20230001" not in games and "你的程序（座位 0）" in games, games


class _Text(__import__("html.parser").parser.HTMLParser):
    """A page's visible words (not its scripts, styles, code, the board's text or attribute values)
    and its links."""

    SKIP = {"script", "style", "code", "pre", "svg", "option", "title"}

    def __init__(self) -> None:
        super().__init__()
        self.words: list[str] = []
        self.links: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self._skip += 1
        href = dict(attrs).get("href")
        if tag == "a" and href:
            self.links.append(href)

    def handle_endtag(self, tag):
        if tag in self.SKIP and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.words.append(data)


#: What a course's Chinese pages may show in Latin letters: names people and the challenge gave
#: (nicknames, the game, its bundled bots, the languages' labels, a file's name), units and codes.
ALLOWED = {"gomoku_classic12", "threat", "template", "pywindow", "Bob", "English", "MiB", "UTC", "zip", "CSV",
           "gcc", "std", "brain", "mine", "Elo", "START", "TURN", "PLACE", "END", "DEBUG", "kothkit", "Old", "cup",
           "CPU", "ISO", "POSIX", "C11", "C++17", "Python", "clock_gettime", "O2", "include", "tmp"}


def test_a_students_pages_in_chinese_show_no_english_made_by_kothkit(served):
    """Every page a student reaches from the challenge's Scoreboard, in Chinese: no English words
    but names and codes (the issue's "course pages in Chinese show no English made by kothkit").
    (A replay page's words are its script's, given by the catalogs: test_i18n checks them.)"""
    with user(served, "20230001", "小明") as c:
        c.headers.update(ZH)
        if "data-status=" not in c.get(f"/c/{OPEN}/mine").text:
            assert submit(c, OPEN, brain("a"), filename="mine.c", language="c11").status_code == 303
        wait_for(lambda: re.search(r'data-status="(?!queued|building|checking)', c.get(f"/c/{OPEN}/mine").text),
                 120, message="a checked brain")
        todo, seen, found = ["/", f"/c/{OPEN}/"], set(), {}
        while todo and len(seen) < 60:
            path = todo.pop(0)
            if path in seen:
                continue
            seen.add(path)
            r = c.get(path)
            if r.status_code != 200 or "text/html" not in r.headers.get("content-type", ""):
                continue
            page = _Text()
            page.feed(r.text)
            text = " ".join(page.words)
            english = sorted({w for w in re.findall(r"[A-Za-z][A-Za-z0-9_+-]*", text)
                              if w not in ALLOWED and len(re.sub(r"[^A-Za-z]", "", w)) >= 3})
            if english:
                found[path] = english
            for link in page.links:
                link = link.split("#")[0]
                if link.startswith(("/c/", "/")) and not link.startswith(("/lang/", "/static/", "/logout")) \
                        and not link.endswith((".zip", ".log", ".c", ".cpp", ".py", "/replay", "/events", ".json")) \
                        and "/log?" not in link and "/played/" not in link \
                        and (link == "/" or link.startswith(f"/c/{OPEN}/")):
                    todo.append(link)
        assert len(seen) >= 8, seen
        # A game's replay says when it ended in the challenge's zone too.
        games = [p for p in seen if "/game/" in p]
        assert games, seen
        replay = c.get(games[0] + "/replay").text
        assert re.search(r'"finished_at":\s*"[^"]*\+08:00"', replay.encode().decode("unicode_escape")), replay[-3000:]
        assert not found, "\n".join(f"{p}: {w}" for p, w in found.items())


def test_the_nickname_form_does_not_tell_whether_a_login_exists(served):
    from tests.serve.webserver import account

    with user(served, "20230001", "小明") as c:
        said = {}
        for nick in ("20230002", "20239999"):  # on the roster, and not
            r = account(c, "a-new-password", "", nick)
            assert r.status_code == 400, r.text[-500:]
            said[nick] = re.search(r'id="message"[^>]*>([^<]*)<', r.text).group(1)
        assert said["20230002"] == said["20239999"], said
        assert "小明" in c.get("/account").text  # nothing was changed


def test_the_public_report_is_in_the_admins_language(served):
    import io
    import zipfile

    from tests.serve.webserver import csrf_of, kothkit

    state = served.proc.args[served.proc.args.index("--state") + 1]
    r = kothkit("users", "admin", "20230002", "--state", state, cwd=Path(state).parent)
    assert r.returncode == 0, r.stdout + r.stderr
    with user(served, "20230002", "Bob") as c:
        c.headers.update(ZH)
        if "data-status=" not in c.get(f"/c/{OPEN}/mine").text:
            assert submit(c, OPEN, brain("b")).status_code == 303
        with user(served, "20230001", "小明") as other:
            if "data-status=" not in other.get(f"/c/{OPEN}/mine").text:
                assert submit(other, OPEN, brain("a"), filename="mine.c").status_code == 303
        wait_for(lambda: c.get(f"/c/{OPEN}/standings.json").json()["rows"]
                 and c.get(f"/c/{OPEN}/standings.json").json()["rows"][0]["games"] > 0, 180, message="a game played")
        token = csrf_of(c.get(f"/admin/c/{OPEN}").text)
        got = c.post(f"/admin/c/{OPEN}/report.zip", data={"csrf": token})
        assert got.status_code == 200, got.text[-500:]
        files = zipfile.ZipFile(io.BytesIO(got.content))
        pages = [n for n in files.namelist() if "/games/" in n]
        assert pages, files.namelist()
        page = files.read(pages[0]).decode()
        assert '<html lang="zh-CN"' in page and "胜者：{bot}" in page, page[:500]
        assert "小明.html" in " ".join(files.namelist())  # a Chinese nickname keeps its page's name
        # Its index and bot pages too (tests/results/test_report_languages.py reads them in a browser).
        index = files.read(next(n for n in files.namelist() if n.endswith("/index.html"))).decode()
        assert '<html lang="zh-CN"' in index and "<h2>排行榜</h2>" in index and "Leaderboard" not in index, index[:800]
