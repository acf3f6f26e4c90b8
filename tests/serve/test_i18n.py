"""The site's two languages: the catalogs against the messages of the code and templates (none
untranslated, none left over, the same placeholders), the choice of language from a browser's
``Accept-Language`` and the switch's cookie, and numbers and dates written as each language does."""

from __future__ import annotations

import re

from pathlib import Path

import pytest
from babel.messages.pofile import read_po

import kothkit
from kothkit.serve import i18n

#: A message's values: %(name)s (the site's), {name} (a replay page's, filled by its script).
PLACEHOLDER = re.compile(r"%\([a-z_]+\)[sdr]|\{[a-z_]+\}")


def _catalog(code: str):
    with i18n.po_path(code).open("rb") as f:
        return read_po(f, locale=code, domain=i18n.DOMAIN)


def test_catalogs_hold_every_message_of_the_code_and_templates_translated():
    wanted = {m.id for m in i18n.extract() if m.id}
    assert len(wanted) > 100  # the extraction found the templates' messages and the code's
    assert "Scoreboard" in wanted and "wrong login or password" in wanted
    for code in i18n.LANGUAGES:
        catalog = _catalog(code)
        have = {m.id: m.string for m in catalog if m.id}
        assert not wanted - set(have), f"{code}: messages not in the catalog (python -m kothkit.serve.i18n): " \
                                       f"{sorted(wanted - set(have))}"
        assert not set(have) - wanted, f"{code}: messages no page uses: {sorted(set(have) - wanted)}"
        untranslated = sorted(k for k, v in have.items() if not v)
        assert not untranslated, f"{code}: untranslated: {untranslated}"
        for msgid, text in have.items():
            assert sorted(PLACEHOLDER.findall(msgid)) == sorted(PLACEHOLDER.findall(text)), (code, msgid, text)
            if code == "en":
                assert text == msgid
            elif len(re.findall(r"[A-Za-z]{3,}", PLACEHOLDER.sub("", msgid))) >= 2:
                # A Chinese message is Chinese (code words such as START may stay as they are).
                assert re.search(r"[\u4e00-\u9fff]", text), (msgid, text)
        assert not any(m.fuzzy for m in catalog if m.id), code
        # Babel's own checkers (python-format and brace placeholders, plural forms) find nothing.
        assert not [(m.id, [str(e) for e in errors]) for m, errors in catalog.check()], code


#: Marker calls whose message is not a literal, each translating messages marked elsewhere (file, code).
NOT_LITERAL = {("admin.py", "_(ACTION_WORDS[action])"), ("app.py", "_(flash)"), ("i18n.py", "gettext(message)"),
               ("i18n.py", "_(VERDICTS[kind])"), ("i18n.py", "gettext(msgid)"), ("i18n.py", "_(head)"), ("i18n.py", "gettext(text)")}


def test_every_message_the_code_can_show_is_translated():
    """Each call of ``_``/``N_``/``gettext`` in the site's code, wherever it is (also inside an
    f-string's values, which Babel's extractor skips: "you lose" was shown in English so), has its
    message translated in every language; a call with a message that is not a literal is one of
    the few known to translate messages marked elsewhere."""
    root = Path(kothkit.__file__).parent / "serve"
    calls = 0
    # (the report's index and bot pages mark their words in kothkit.results.site)
    for path in [*sorted(root.glob("*.py")), root.parent / "results" / "site.py"]:
        lines = path.read_text(encoding="utf-8").splitlines()
        for lineno, message in i18n.marked(path):
            calls += 1
            if message is None:
                assert any(f == path.name and code in lines[lineno - 1] for f, code in NOT_LITERAL), \
                    f"{path.name}:{lineno}: a message that is not a literal: {lines[lineno - 1].strip()}"
                continue
            for code in i18n.LANGUAGES:
                assert not i18n.missing(message, code), f"{path.name}:{lineno}: {code} lacks {message!r}"
    assert calls > 150


def test_the_catalogs_compile_and_translate():
    langs = i18n.languages()
    with i18n.use("zh_CN"):
        assert i18n._("Scoreboard") == "排行榜"
        assert i18n._("at most %(bytes)s bytes", bytes=i18n.number(1_000_000)) == "最多 1,000,000 字节"
    with i18n.use("en"):
        assert i18n._("Scoreboard") == "Scoreboard"
    assert i18n.current() == "en"
    assert not i18n.missing("Scoreboard", "zh_CN") and i18n.missing("not a message of the site", "zh_CN")
    assert set(langs) == {"en", "zh_CN"}


@pytest.mark.parametrize(("header", "cookie", "want"), [
    ("zh-CN,zh;q=0.9,en;q=0.8", None, "zh_CN"),
    ("zh", None, "zh_CN"),
    ("zh-TW", None, "zh_CN"),
    ("en-US,en;q=0.9", None, "en"),
    ("fr-FR, de;q=0.9", None, "en"),          # neither: English
    ("fr;q=1, zh;q=0.5, en;q=0.4", None, "zh_CN"),
    ("en;q=0.2, zh-Hans;q=0.9", None, "zh_CN"),  # by weight, not by order
    ("zh;q=0, en", None, "en"),                # q=0: not wanted
    ("", None, "en"),
    (None, None, "en"),
    ("\x00garbage;;q=x,,", None, "en"),
    ("en", "zh_CN", "zh_CN"),                  # the switch's choice wins
    ("zh-CN", "en", "en"),
    ("zh-CN", "xx", "zh_CN"),                  # a cookie that is no language of ours is ignored
])
def test_the_language_follows_the_browser_and_the_switch(header, cookie, want):
    assert i18n.negotiate(header, cookie) == want


def test_a_replay_page_is_given_every_word_of_its_script():
    from kothkit.results.replay import WORDS
    from kothkit.serve.i18n import replay_words

    template = (Path(kothkit.__file__).parent / "templates" / "replay.html").read_text()
    used = set(re.findall(r'T\("((?:[^"\\]|\\.)*)"', template))
    used = {w.encode().decode("unicode_escape") for w in used}
    assert used == set(WORDS) == set(replay_words())
    with i18n.use("zh_CN"):
        assert replay_words()["Winner: {bot}"] == "胜者：{bot}"


def test_numbers_and_dates_in_each_language():
    t = 1_764_115_200.0  # 2025-11-26 00:00:00 UTC
    with i18n.use("en"):
        assert i18n.number(1234567) == "1,234,567"
        assert i18n.when(t) == "Nov 26, 2025, 12:00:00\u202fAM UTC"
    with i18n.use("zh_CN"):
        assert i18n.number(1234567) == "1,234,567"
        assert i18n.when(t) == "2025年11月26日 00:00:00 UTC"
    assert i18n.when(None) == ""


# -- the core's and the games' texts for people (kothkit.messages) -----------------------------------

GAMES = ("gomoku_classic12", "gomoku_swap2", "connect4_hidden")


def _values(msgid: str) -> dict[str, str]:
    return {name: f"v{i}x" for i, name in enumerate(dict.fromkeys(re.findall(r"\{([a-z_]+)\}", msgid)))}


def test_each_core_and_game_message_is_found_again_in_its_english_text():
    """Every message a page fits texts to: its English (as ``say`` writes it) reads back as that
    message, not another, and comes out translated with its values in place."""
    from kothkit.messages import fill, say

    with i18n.use("zh_CN"):
        catalogs = [(None, i18n.languages()["zh_CN"])] + [(g, i18n.game_language(g)) for g in GAMES]
        for game, c in catalogs:
            assert c is not None and c.said, game
            for msgid in c.said:
                values = _values(msgid)
                want = fill(c.translations.gettext(msgid), values)
                assert i18n.said(say(msgid, **values), game) == want, (game, msgid)
        assert len(i18n.languages()["zh_CN"].said) >= 20


@pytest.mark.parametrize("game", GAMES)
def test_each_bundled_game_ships_a_whole_chinese_catalog(game):
    from kothkit.plugins import get_game

    info = get_game(game)
    assert info.catalogs is not None
    with (info.catalogs / "zh_CN.po").open("rb") as f:
        catalog = read_po(f, locale="zh_CN")
    have = {m.id: m.string for m in catalog if m.id}
    assert info.summary in have
    for msgid, text in have.items():
        assert text, (game, msgid)
        assert sorted(PLACEHOLDER.findall(msgid)) == sorted(PLACEHOLDER.findall(text)), (game, msgid, text)
        if len(re.findall(r"[A-Za-z]{3,}", PLACEHOLDER.sub("", msgid))) >= 2:
            assert re.search(r"[\u4e00-\u9fff]", text), (game, msgid, text)
    with i18n.use("zh_CN"):
        assert re.search(r"[\u4e00-\u9fff]", i18n.said(info.summary, game))


def _rejected(game: str, replies: list[tuple[int, object]]) -> str:
    """The reason the game gives for the first reply of ``replies`` it rejects, played from the start."""
    from kothkit.game import Setup
    from kothkit.plugins import get_game

    info = get_game(game)
    match = info.match(Setup(players=("a", "b"), seed=1, rules=info.check_rules()))
    for seat, reply in replies:
        match.next()
        rejected = match.play(seat, reply)
        if rejected is not None:
            return f"{rejected.verdict}: {rejected.reason}"
    raise AssertionError(f"{game}: no reply rejected")


@pytest.mark.parametrize(("game", "replies", "chinese"), [
    ("gomoku_classic12", [(0, "OK"), (1, "OK"), (0, "5 5")], "违规着法：(5, 5) 已有棋子"),
    ("gomoku_classic12", [(0, "OK"), (1, "OK"), (0, "20 3")], "违规着法：(20, 3) 在 12x12 棋盘之外"),
    ("gomoku_classic12", [(0, "OK"), (1, "OK"), (0, "hello")], "无效回复：应为 'X Y'（行和列），收到的是 'hello'"),
    ("gomoku_classic12", [(0, "NO")], "无效回复：START 之后应回复 OK，收到的是 'NO'"),
    ("gomoku_swap2", [(0, "hello")], "无效回复：无法读懂 'hello'：应为三个格子 '(x,y) (x,y) (x,y)'（两黑一白）"),
    ("gomoku_swap2", [(0, "(1,1) (1,1) (2,2)")], "违规着法：(1,1) 给出了两次"),
    ("connect4_hidden", [(0, 9)], "违规着法：第 9 列在棋盘之外（列为 0-6）"),
    ("connect4_hidden", [(0, "x")], "无效回复：应为 0-6 的列号，收到的是 'x'"),
    ("connect4_hidden", [(0, 2.5)], "无效回复：列必须是 0-6 的整数，收到的是 2.5"),
])
def test_a_games_own_reasons_in_chinese(game, replies, chinese):
    """The bundled games' reasons, as their matches write them (English: their code is their
    games' ids, untouched), read in Chinese through each game's catalog."""
    text = _rejected(game, replies)
    with i18n.use("zh_CN"):
        assert i18n.reason(text, game) == chinese, text
    with i18n.use("en"):
        assert i18n.reason(text, game) == text


def test_the_cores_reasons_in_chinese_and_old_journals_too():
    from kothkit.procs.pipes import describe_exit

    with i18n.use("zh_CN"):
        assert i18n.reason(f"crash: {describe_exit(-11)}; stderr: 'Segmentation fault'") == \
            "崩溃：被 SIGSEGV 信号终止；标准错误输出：'Segmentation fault'"
        assert i18n.reason(f"crash: {describe_exit(3)}") == "崩溃：以退出码 3 退出"
        # A function bot's: the exception is its own words.
        assert i18n.reason("crash: raised ValueError: boom (bot.py, line 3, in play)", "connect4_hidden") == \
            "崩溃：抛出了异常 ValueError: boom (bot.py, line 3, in play)"
        # A reason no message fits (a journal of another version) is shown as it is.
        assert i18n.reason("timeout: the bot was abducted") == "超时：the bot was abducted"
        assert i18n.reason("something else entirely") == "something else entirely"
