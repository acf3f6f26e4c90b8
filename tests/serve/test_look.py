"""Every page of a real ``kothkit serve`` in the system's Chromium, at a phone's width, in English
and in Chinese: each in the site's frame with the language switch, none wider than the screen
(tables scroll inside their box), none loading anything from another origin, and in Chinese no
English left but the data (names, titles, code); the replay page driven from the keyboard.

With ``KOTHKIT_SCREENSHOTS=FOLDER`` the main pages' screenshots are kept there (docs/serve.md's
are made so: ``KOTHKIT_SCREENSHOTS=docs/screenshots pytest tests/serve/test_look.py``)."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import httpx
import pytest

from tests.serve.webserver import ROOT, Server, brain, challenge, kothkit, roster, submit, user, wait_for

NAME = "g12"
#: A course's challenge as a host writes it (docs/serve.md's screenshots show it): the bundled
#: course's title, rules (README.md, README.zh_CN.md) and template brains.
COURSE = ROOT / "challenges" / "course12"
TITLE = "12×12 五子棋：课程程序比赛"
#: The students (login, nickname) and the brains they submit: the test's tiny brain, the bundled
#: "threat" bot's source and the course's template.
STUDENTS = (("u1", "小明", brain("u1")),
            ("u2", "阿杰", (ROOT / "plugins" / "gomoku_classic12" / "bots" / "threat" / "brain.c").read_bytes()),
            ("u3", "Lin", (COURSE / "templates" / "brain.c").read_bytes()))
PHONE = {"width": 375, "height": 740}
#: The page text that is data, not the site's messages: these stay as they are in Chinese.
DATA_WORDS = {"kothkit", "gomoku", "classic", "UTC", "MiB", "zip", "brain", "Lin",
              "English", "Python", "nobody",
              # technical terms Chinese text writes as they are
              "CPU", "tmp", "START", "DEBUG", "PLACE", "TURN", "END", "cpp", "ISO", "POSIX",
              "jobs"}  # (--jobs: an option of the command line)
#: Elements whose text is data or code (removed before looking for English words in a Chinese page).
DATA_SELECTORS = ("code, pre, script, style, #langs, #languages td:first-child, #language, .language, #opponent, #game-log, "
                  # a replay's data: the bots' replies, the judge's lines, its id and seed
                  "#step .reply, #step .sent, #logs .log, svg, #subheading")


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A site where Alice's and Bob's brains have played each other."""
    tmp = tmp_path_factory.mktemp("look")
    ch = challenge(tmp / NAME, min_interval=1, title=TITLE)
    for name in ("README.md", "README.zh_CN.md"):
        shutil.copy(COURSE / name, ch / name)
    shutil.copytree(COURSE / "templates", ch / "templates")
    state = tmp / "state"
    roster(state, tmp, [login for login, _nick, _source in STUDENTS])
    r = kothkit("users", "admin", "u2", "--state", state, cwd=tmp)
    assert r.returncode == 0, r.stdout + r.stderr
    server = Server([ch], state, tmp)
    try:
        for login, nick, source in reversed(STUDENTS):
            with user(server, login, nick) as student:
                assert submit(student, NAME, source).status_code == 303
                if login == "u2":
                    admin = [{"name": k, "value": v, "url": server.url} for k, v in student.cookies.items()]
        with user(server, "u1", "小明") as alice:
            cookies = [{"name": k, "value": v, "url": server.url} for k, v in alice.cookies.items()]
            n = len(STUDENTS)

            def done():
                rows = alice.get(f"/c/{NAME}/standings.json").json()["rows"]
                return rows if len(rows) == n and all(r["games"] == 2 * (n - 1) for r in rows) else None

            rows = wait_for(done, 180, message="the brains' games")
            mine = alice.get(f"/c/{NAME}/mine").text
            sid = re.search(r'data-id="(\d+)"', mine).group(1)
            bot = next(r["bot"] for r in rows if r["name"] == "小明")
            games = alice.get(f"/c/{NAME}/bot/{bot}").text
            gid = re.search(rf'/c/{NAME}/game/([0-9a-f]+)"', games).group(1)
        yield server, cookies, {"sid": sid, "bot": bot, "gid": gid, "journal": state / "journals" / f"{NAME}.sqlite",
                                "admin": admin}
    finally:
        assert server.stop() == 0, server.text


def pages(ids: dict) -> dict[str, str]:
    """Name -> path of every page a student sees."""
    c = f"/c/{NAME}"
    return {"challenges": "/", "scoreboard": f"{c}/", "rules": f"{c}/about", "crosstable": f"{c}/crosstable",
            "submit": f"{c}/submit", "mine": f"{c}/mine", "submissions": f"{c}/submissions",
            "submission": f"{c}/submission/{ids['sid']}", "bot": f"{c}/bot/{ids['bot']}",
            "game": f"{c}/game/{ids['gid']}", "replay": f"{c}/game/{ids['gid']}/replay", "account": "/account",
            "login": "/login", "error": f"{c}/bot/nobody", "play": f"{c}/play"}


#: The pages docs/serve.md shows.
SHOWN = ("challenges", "scoreboard", "rules", "submit", "mine", "replay", "play")


def _english_left(page, selector: str) -> set[str]:
    text = page.evaluate("""([root, drop]) => {
        const copy = document.querySelector(root).cloneNode(true);
        copy.querySelectorAll(drop).forEach(e => e.remove());
        document.body.appendChild(copy);  // innerText needs a rendered element
        const text = copy.innerText;
        copy.remove();
        return text;
    }""", [selector, DATA_SELECTORS])
    return set(re.findall(r"[A-Za-z]{3,}", text)) - DATA_WORDS


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
def test_every_page_fits_a_phone_in_both_languages(browser, played, locale, tmp_path):
    server, cookies, ids = played
    keep = os.environ.get("KOTHKIT_SCREENSHOTS")
    shots = Path(keep) if keep else tmp_path
    shots.mkdir(parents=True, exist_ok=True)
    lang = "zh_CN" if locale == "zh-CN" else "en"
    context = browser.new_context(locale=locale, viewport=PHONE)
    context.add_cookies(cookies)
    elsewhere: list[str] = []
    context.on("request", lambda r: r.url.startswith((server.url, "data:", "about:")) or elsewhere.append(r.url))
    errors: list[str] = []
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: m.type == "error" and "Failed to load resource" not in m.text
            and errors.append(m.text))
    try:
        for name, path in pages(ids).items():
            r = page.goto(server.url + path)
            assert r.status == (404 if name == "error" else 200), (name, r.status)
            html_lang = page.get_attribute("html", "lang")
            if name != "replay":
                assert html_lang == ("zh-CN" if lang == "zh_CN" else "en"), name
            # The frame: the site's name, the challenge's links where there is one, the switch.
            assert page.locator("header nav a").first.inner_text() == "kothkit", name
            assert page.locator("#langs").count() == 1, name
            width = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
            assert width[0] <= width[1], f"{name} ({locale}) is wider than a phone: {width}"
            if lang == "zh_CN":
                left = _english_left(page, "body")
                assert not left, f"{name}: English words in the Chinese page: {sorted(left)}"
            if name in SHOWN:
                page.screenshot(path=str(shots / f"{lang}-{name}.png"), full_page=True)
        assert not elsewhere, f"pages loaded from elsewhere: {elsewhere}"
        assert not errors, errors
    finally:
        context.close()


def test_the_switch_changes_the_language_and_stays(browser, played):
    server, cookies, ids = played
    context = browser.new_context(locale="en-US", viewport=PHONE)
    page = context.new_page()
    try:
        page.goto(f"{server.url}/c/{NAME}/crosstable")
        assert page.locator("h1").inner_text().endswith("crosstable")
        page.click("#langs .lang-zh_CN")
        page.wait_for_url(f"**/c/{NAME}/crosstable")
        assert page.locator("h1").inner_text().endswith("交叉表")
        page.goto(f"{server.url}/")  # the choice stays, against the browser's language
        assert page.locator("h1").inner_text() == "比赛"
        page.click("#langs .lang-en")
        page.wait_for_url(f"{server.url}/")
        assert page.locator("h1").inner_text() == "Challenges"
    finally:
        context.close()
    with httpx.Client(base_url=server.url, timeout=30) as c:
        # Only a path of the site is gone back to, and only our languages are remembered.
        r = c.get("/lang/zh_CN", params={"next": "//evil.example/"})
        assert r.status_code == 303 and r.headers["location"] == "/"
        r = c.get("/lang/xx", params={"next": "/c/g12/"})
        assert r.headers["location"] == "/c/g12/" and "lang=" not in r.headers.get("set-cookie", "")


def test_the_replay_page_is_driven_from_the_keyboard(browser, played):
    server, cookies, ids = played
    context = browser.new_context(locale="en-US", viewport=PHONE)
    context.add_cookies(cookies)
    page = context.new_page()
    try:
        page.goto(f"{server.url}/c/{NAME}/game/{ids['gid']}/replay")
        counter = page.locator("#counter")
        first = counter.inner_text()
        page.keyboard.press("End")
        last = counter.inner_text()
        assert last != first
        page.keyboard.press("ArrowLeft")
        assert counter.inner_text() not in (first, last)
        page.keyboard.press("Home")
        assert counter.inner_text() == first
        # Every control is reachable with Tab (buttons and the slider, nothing a mouse alone can use).
        page.focus("#first")
        page.keyboard.press("Tab")
        assert page.evaluate("document.activeElement.id") == "prev"
    finally:
        context.close()


def test_the_reports_pages_share_the_look_and_fit_a_phone(browser, played, tmp_path):
    """``kothkit report`` of the host's journal: its pages in the same frame and stylesheet (inlined),
    none wider than a phone."""
    server, cookies, ids = played
    r = kothkit("report", ids["journal"], "--out", tmp_path / "report", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    site = tmp_path / "report"
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    try:
        for path in [site / "index.html", *sorted((site / "bots").iterdir()), next((site / "games").iterdir())]:
            page.goto(path.as_uri())
            width = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
            assert width[0] <= width[1], f"{path.name} is wider than a phone: {width}"
            # The site's stylesheet, inlined (the page loads nothing).
            assert "--focus" in page.inner_html("head style")
            if path.parent.name in ("bots", "games"):
                assert page.locator("header nav#nav a").count() >= 1, path.name
    finally:
        context.close()


def test_the_admins_pages_in_chinese(browser, played):
    server, cookies, ids = played
    context = browser.new_context(locale="zh-CN", viewport=PHONE)
    context.add_cookies(ids["admin"])
    page = context.new_page()
    try:
        for path in ("/admin", f"/admin/c/{NAME}"):
            assert page.goto(server.url + path).status == 200, path
            width = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
            assert width[0] <= width[1], f"{path} is wider than a phone: {width}"
            # Logins, file names and the log of admin actions (kothkit users' own words) are data.
            page.evaluate("document.querySelectorAll('#admin-log tbody').forEach(e => e.remove())")
            left = _english_left(page, "body") - {"brain", "CSV"}
            assert not left, f"{path}: English words in the Chinese page: {sorted(left)}"
    finally:
        context.close()
