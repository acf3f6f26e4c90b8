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
