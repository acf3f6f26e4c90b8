"""A challenge's page in the system's Chromium, against a real ``kothkit serve``: its README
rendered with raw HTML shown as text (in Chinese where the folder has a README.zh_CN.md), its
limits as the challenge's settings make them (never a default, never a stale copy), and its
template brains offered for download, nothing else from the folder.  The bundled course's page,
in both languages, offers a template in each of its languages, each of which builds with that
language's build command and plays.  And the upload size limit: said the same way on the form and
in the refusal, which is the form again, with the language chosen kept."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import httpx
import pytest

from tests.serve.webserver import ROOT, Server, roster, user

NAME = "rules"
COURSE = ROOT / "challenges" / "course12"
FUNCTIONS = ROOT / "challenges" / "connect4_course"

README = """# The <script>alert(1)</script> cup

Some *rules* <img src=x onerror="alert(2)"> and [a bad link](javascript:alert(3)),
an image ![pic](http://example.com/x.png) and a [good link](https://example.com/).

| a | b |
| --- | --- |
| 1 | 2 |
"""
README_ZH = "# 中文规则\n\n请先阅读 <b>规则</b>。\n"
TEMPLATE = b"int main(void) { return 0; }\n"


def _challenge(folder: Path) -> Path:
    folder.mkdir(parents=True)
    (folder / "kothkit.toml").write_text(
        'game = "gomoku_classic12"\nseed = 3\n'
        '[limits]\nmove_time = 1.5\nfirst_reply_time = 2.5\ngame_time = 33.0\nmemory_mb = 123\ndisk_mb = 77\n'
        '[serve]\nkind = "submissions"\ntitle = "Rules cup"\nmax_bytes = 54321\nmin_interval = 7\nper_day = 9\n'
        'build_time = 44\nbuild_seconds_per_day = 555\n')
    (folder / "README.md").write_text(README)
    (folder / "README.zh_CN.md").write_text(README_ZH)
    t = folder / "templates"
    t.mkdir()
    (t / "brain.c").write_bytes(TEMPLATE)
    (t / ".hidden").write_text("secret")
    (t / "sub").mkdir()
    (t / "link.c").symlink_to(folder / "kothkit.toml")
    return folder


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("challenge-page")
    ch = _challenge(tmp / NAME)
    state = tmp / "state"
    roster(state, tmp, ["s1"])
    server = Server([ch, COURSE, FUNCTIONS], state, tmp)
    try:
        yield server
    finally:
        assert server.stop() == 0, server.text


def _page(browser, locale: str):
    context = browser.new_context(locale=locale)
    return context, context.new_page()


def test_the_challenge_page_shows_the_limits_from_the_settings(browser, site):
    for locale, want in (("en-US", {"move_time": "1.5 s", "first_reply_time": "2.5 s", "game_time": "33 s",
                                    "memory_mb": "123 MiB", "disk_mb": "77 MiB", "cpu_seconds": "no limit",
                                    "max_bytes": "at most 54,321 bytes", "min_interval": "7 s",
                                    "per_day": "at most 9", "build_time": "44 s", "build_seconds_per_day": "555 s"}),
                         ("zh-CN", {"move_time": "1.5 秒", "first_reply_time": "2.5 秒", "game_time": "33 秒",
                                    "memory_mb": "123 MiB", "cpu_seconds": "不限", "max_bytes": "最多 54,321 字节",
                                    "per_day": "最多 9 次", "build_seconds_per_day": "555 秒"})):
        context, page = _page(browser, locale)
        try:
            page.goto(f"{site.url}/c/{NAME}/about")
            for key, value in want.items():
                assert page.inner_text(f"#limit-{key} td") == value, (locale, key)
            readme = page.locator("#readme")
            if locale == "en-US":
                # Raw HTML is text; no script, no image from elsewhere, no javascript: link.
                assert "The <script>alert(1)</script> cup" in page.inner_text("#readme h1")
                assert readme.locator("script, img").count() == 0
                assert '<img src=x onerror="alert(2)">' in readme.inner_text()
                assert readme.locator("a[href^='javascript']").count() == 0
                assert readme.locator("a[href='https://example.com/']").count() == 1
                assert readme.locator("table td").count() == 2
            else:
                assert page.inner_text("#readme h1") == "中文规则"
                assert "<b>规则</b>" in readme.inner_text() and readme.locator("b").count() == 0
            # Only the plain files of templates/ are offered.
            assert page.locator("#templates a").all_inner_texts() == ["brain.c"]
        finally:
            context.close()
    with httpx.Client(base_url=site.url, timeout=30) as c:
        r = c.get(f"/c/{NAME}/template/brain.c")
        assert r.status_code == 200 and r.content == TEMPLATE
        assert r.headers["content-disposition"] == 'attachment; filename="brain.c"'
        for bad in ("link.c", ".hidden", "sub", "..%2Fkothkit.toml", "%2E%2E"):
            assert c.get(f"/c/{NAME}/template/{bad}").status_code == 404, bad


def test_the_course_page_in_both_languages_offers_a_template_that_builds_in_each_language(browser, site, tmp_path):
    languages = tomllib.loads((COURSE / "kothkit.toml").read_text())["serve"]["languages"]
    for locale, heading in (("en-US", "Gomoku 12×12: the course's brain contest"), ("zh-CN", "12×12 五子棋：课程程序比赛")):
        context, page = _page(browser, locale)
        try:
            page.goto(f"{site.url}/c/course12/about")
            assert page.inner_text("#readme h1") == heading
            assert page.locator("#readme table").count() == 1  # the protocol in short
            assert sorted(page.locator("#templates a").all_inner_texts()) == sorted(x["file"] for x in languages.values())
        finally:
            context.close()
    with httpx.Client(base_url=site.url, timeout=30) as c:
        for lang, profile in languages.items():
            folder = tmp_path / lang
            folder.mkdir()
            r = c.get(f"/c/course12/template/{profile['file']}")
            assert r.status_code == 200
            (folder / profile["file"]).write_bytes(r.content)
            built = subprocess.run(profile["build"], cwd=folder, capture_output=True, text=True, timeout=120)
            assert built.returncode == 0, built.stderr
            played = subprocess.run([os.path.join(folder, profile["command"][0])], cwd=folder, capture_output=True,
                                    text=True, timeout=30, input="START 1\nTURN\nPLACE 4 4\nTURN\nEND 0\n")
            lines = played.stdout.split()
            assert played.returncode == 0 and lines[0] == "OK", played.stdout
            moves = {(lines[1], lines[2]), (lines[3], lines[4])}
            assert len(moves) == 2 and all(0 <= int(x) < 12 for m in moves for x in m) and ("4", "4") not in moves


def test_the_size_limit_is_said_the_same_way_on_the_form_and_in_the_refusal(browser, site, tmp_path):
    with user(site, "s1", "Sam") as c:
        cookies = [{"name": k, "value": v, "url": site.url} for k, v in c.cookies.items()]
    for locale, limit in (("zh-CN", "最多 54,321 字节"), ("en-US", "at most 54,321 bytes")):
        context, page = _page(browser, locale)
        context.add_cookies(cookies)
        try:
            for size in (60_000, 200_000):  # read and refused; refused from its length, before it is read
                page.goto(f"{site.url}/c/{NAME}/submit")
                assert limit in page.inner_text("#size-limit")
                page.select_option("#language", "cpp17")
                big = tmp_path / f"big{size}.cpp"
                big.write_bytes(b"/" * size)
                page.set_input_files("#file", str(big))
                with page.expect_navigation():
                    page.click("#submit")
                message = page.inner_text("#message")
                assert limit in message, message
                # The refusal is the form again (the way back), the language chosen kept when the form
                # was read (a body far over the limit is not: its length refuses it).
                assert page.is_visible("#file")
                assert page.input_value("#language") == ("cpp17" if size == 60_000 else "c11")
                assert limit in page.inner_text("#size-limit")
        finally:
            context.close()



def test_the_hosts_refusals_are_in_the_readers_language(browser, site, tmp_path):
    """A message made in the host's threads (too soon after a submission) is in the page's language."""
    with user(site, "s1", "Sam") as c:
        cookies = [{"name": k, "value": v, "url": site.url} for k, v in c.cookies.items()]
    context, page = _page(browser, "zh-CN")
    context.add_cookies(cookies)
    source = tmp_path / "brain.c"
    source.write_bytes(TEMPLATE)
    try:
        for _ in range(2):
            page.goto(f"{site.url}/c/{NAME}/submit")
            page.set_input_files("#file", str(source))
            with page.expect_navigation():
                page.click("#submit")
        # The second within the challenge's 7 s: refused, saying so in Chinese, on the form.
        message = page.inner_text("#message")
        assert message.startswith("每 7 秒最多提交一次") and "秒后可以再次提交" in message, message
        assert page.is_visible("#file")
    finally:
        context.close()


CLOCK_C = b"""#include <stdio.h>
#include <time.h>
int main(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); printf("%ld\\n", (long)t.tv_sec); return 0; }
"""


def test_the_rules_page_says_what_the_judge_applies(site, tmp_path):
    """The process cap the jail applies (not "no limit"), the first reply's margin, a strict C
    language's hidden POSIX names (true: the course's C build refuses clock_gettime without the
    define, and takes it with it), and a function-bot challenge's function and template."""
    from kothkit.limits import DEFAULT_PROCESSES, Limits
    from kothkit.procs.contain import capabilities
    from kothkit.serve.about import process_cap

    held = capabilities().pids_dir is not None
    assert process_cap(Limits()) == (DEFAULT_PROCESSES if held else None)
    assert process_cap(Limits(processes=12)) == 12
    with httpx.Client(base_url=site.url, timeout=30, headers={"accept-language": "en"}) as c:
        page = c.get("/c/course12/about").text
        want = f"{DEFAULT_PROCESSES:,}" if held else "no limit"
        assert f'<tr id="limit-processes"><th scope="row">Processes and threads at once</th><td>{want}</td>' in page
        assert '<tr id="limit-tolerance">' in page and "0.05 s" in page
        assert 'id="limit-build_processes"' in page and 'id="limit-load_time"' not in page
        assert 'id="posix-c11"' in page and 'id="posix-cpp17"' not in page
        assert "#define _POSIX_C_SOURCE 200809L" in page
        functions = c.get(f"/c/{FUNCTIONS.name}/about").text
        assert 'id="function-python"' in functions and "<code>play</code>" in functions
        assert "play(view, turn, state)" in functions and 'id="limit-load_time"' in functions
        assert f'href="/c/{FUNCTIONS.name}/template/bot.py"' in functions
        zh = c.get(f"/c/{FUNCTIONS.name}/about", headers={"accept-language": "zh-CN"}).text
        assert "蒙眼四子棋" in zh and "play(view, turn, state)" in zh
        template = c.get(f"/c/{FUNCTIONS.name}/template/bot.py").content
    # What the page says of strict C is what the course's build does.
    build = tomllib.loads((COURSE / "kothkit.toml").read_text())["serve"]["languages"]["c11"]["build"]
    for source, builds in ((CLOCK_C, False), (b"#define _POSIX_C_SOURCE 200809L\n" + CLOCK_C, True)):
        (tmp_path / "brain.c").write_bytes(source)
        done = subprocess.run(build, cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert (done.returncode == 0) == builds, done.stderr
    # The template bot plays whole games against the bundled bots.
    (tmp_path / "bot.py").write_bytes(template)
    ran = subprocess.run([sys.executable, "-m", "kothkit", "run", "connect4_hidden", "--rounds", "2", "--bots",
                          f"{tmp_path / 'bot.py'}:play", "--bots", str(ROOT / "plugins" / "connect4_hidden" / "bots"),
                          "--db", str(tmp_path / "j.sqlite")], cwd=tmp_path, capture_output=True, text=True,
                         timeout=300)
    assert ran.returncode == 0 and "play" in ran.stdout, ran.stdout[-2000:] + ran.stderr[-2000:]
    assert "crash" not in ran.stdout and "invalid-reply" not in ran.stdout, ran.stdout[-2000:]
