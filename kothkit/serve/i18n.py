"""The site's languages: English and Simplified Chinese, from Babel catalogs.

The catalogs are the ``.po`` files in ``kothkit/locale/<lang>/LC_MESSAGES/kothkit.po`` (shipped as
package data); they are compiled in memory with Babel's public API the first time they are needed
(:func:`translations`), so an install from source needs no build step.  A request's language
(:func:`negotiate`: the ``lang`` cookie set by the switch on every page, else ``Accept-Language``)
is kept in a context variable (:func:`use`) for the request's task and the threads it starts
(Starlette's thread pool copies the context), so both the templates (Jinja2's i18n extension,
installed by :func:`install`) and Python messages (:func:`_`) are translated without passing the
language around.  Numbers and times are formatted for the language (:func:`number`, :func:`when`),
times in the time zone of the page's challenge (:func:`set_zone`, also a context variable).  Texts
kept in English where they are stored (a failed build's own lines, the admin log's) are shown in the
reader's language by fitting them to their messages (:func:`build_output`, :func:`admin_text`).

``python -m kothkit.serve.i18n`` extracts the messages of the code and templates and merges them
into the catalogs (new messages untranslated; tests/serve/test_i18n.py fails until they are).
The command line stays English: only the site's pages and messages are translated.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime
import functools
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import jinja2
from babel import Locale
from babel.dates import format_datetime
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal
from babel.support import Translations

from kothkit import messages
from kothkit.game import Verdict
from kothkit.store.records import split_reason

#: The site's languages, the first the default; each with its name as its speakers write it.
LANGUAGES = {"en": "English", "zh_CN": "中文"}
DEFAULT = "en"
#: The cookie that keeps a visitor's choice of language.
COOKIE = "lang"
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
DOMAIN = "kothkit"
#: Where the messages are: (folder under kothkit/, extraction method); the report's index and bot
#: pages (kothkit.results.site, which marks its words with ``N_``, and its templates) are the site's too.
SOURCES = (("serve", "python"), ("serve/templates", "jinja2"), ("results", "python"), ("templates/report", "jinja2"))
#: The core's modules that write texts for people with :func:`kothkit.messages.say` (a verdict's
#: reason): their messages are in the site's catalogs too, and are what :func:`reason` fits a text to.
SAY_SOURCES = ("game.py", "human.py", "bots/functions.py", "playing/referee.py", "playing/seats.py",
               "procs/pipes.py", "serve/validation.py", "playing/play.py", "playing/playweb.py")

_current: contextvars.ContextVar[str] = contextvars.ContextVar("kothkit_language", default=DEFAULT)
#: The time zone the page being made writes times in (its challenge's: ``ServeSettings.zone``).
_zone: contextvars.ContextVar[datetime.tzinfo] = contextvars.ContextVar("kothkit_zone", default=datetime.UTC)


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@attrs.frozen
class Language:
    code: str
    translations: Translations
    #: The messages the catalog translates (a message not in it is shown in English).
    known: frozenset[str]
    #: The core's texts for people (kothkit.messages) it translates, as kothkit.messages.match tries them.
    said: tuple[str, ...] = ()


@functools.cache
def languages() -> dict[str, Language]:
    """Each language's catalog, compiled from its .po file (once per process)."""
    out = {}
    for code in LANGUAGES:
        with po_path(code).open("rb") as f:
            catalog = read_po(f, locale=code, domain=DOMAIN)
        buf = io.BytesIO()
        write_mo(buf, catalog)
        buf.seek(0)
        known = frozenset(m.id for m in catalog if isinstance(m.id, str) and m.id and m.string)
        said = [m.id for m in catalog if m.id in known and any(f.removeprefix("kothkit/") in SAY_SOURCES
                                                                for f, _n in m.locations)]
        out[code] = Language(code, Translations(buf, domain=DOMAIN), known, messages.ordered(said))
    return out


@functools.cache
def _game_catalog(folder: Path, lang: str) -> Language | None:
    """A game's catalog for ``lang`` (``GameInfo.catalogs``), or None if it has none."""
    path = folder / f"{lang}.po"
    if not path.is_file():
        return None
    with path.open("rb") as f:
        catalog = read_po(f, locale=lang)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    known = frozenset(m.id for m in catalog if isinstance(m.id, str) and m.id and m.string)
    return Language(lang, Translations(buf), known, messages.ordered(known))


def game_language(game: str | None, lang: str | None = None) -> Language | None:
    """The catalog of the game named ``game`` for ``lang`` (the request's), or None."""
    if not game:
        return None
    from kothkit.plugins import PluginError, get_game

    try:
        folder = get_game(game).catalogs
    except (PluginError, KeyError):
        return None
    return _game_catalog(folder, lang or current()) if folder is not None else None


def current() -> str:
    """The language of the request being answered (``en`` outside one)."""
    return _current.get()


@contextlib.contextmanager
def use(lang: str) -> Iterator[None]:
    """Answer in ``lang`` inside the block."""
    token = _current.set(lang if lang in LANGUAGES else DEFAULT)
    try:
        yield
    finally:
        _current.reset(token)


def set_language(lang: str) -> None:
    """Answer in ``lang`` from now on in this context (a request's task)."""
    _current.set(lang if lang in LANGUAGES else DEFAULT)


_TAG = re.compile(r"\s*([A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*|\*)\s*(?:;\s*q\s*=\s*([0-9.]{1,5}))?\s*")


def negotiate(accept_language: str | None, cookie: str | None = None) -> str:
    """The language for a visitor: their choice (the cookie) if it is one of ours, else the first
    of ``Accept-Language`` (by weight) that we have (any Chinese is zh_CN), else English."""
    if cookie in LANGUAGES:
        return cookie
    wanted: list[tuple[float, int, str]] = []
    for i, part in enumerate((accept_language or "")[:1000].split(",")):
        m = _TAG.fullmatch(part)
        if not m:
            continue
        try:
            q = float(m.group(2)) if m.group(2) else 1.0
        except ValueError:
            continue
        if q > 0:
            wanted.append((-q, i, m.group(1).lower()))
    for _q, _i, tag in sorted(wanted):
        if tag.startswith("zh"):
            return "zh_CN"
        if tag.startswith("en"):
            return "en"
    return DEFAULT


def gettext(message: str) -> str:
    return languages()[current()].translations.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return languages()[current()].translations.ngettext(singular, plural, n)


def _(message: str, **values: Any) -> str:
    """``message`` in the request's language, ``%(name)s`` filled from ``values``."""
    text = gettext(message)
    return text % values if values else text


def N_(message: str) -> str:
    """Marks ``message`` for the catalogs where it is defined; it is translated where it is shown (``_``)."""
    return message


def missing(message: str, lang: str) -> bool:
    """Whether ``lang``'s catalog lacks ``message`` (English lacks none: its messages are the ids)."""
    return lang != DEFAULT and message not in languages()[lang].known


#: A verdict in words, translated where it is shown: each :class:`kothkit.game.Verdict` (its value is
#: its message: :func:`extract` adds them to the catalogs) and a fault of no known kind.
VERDICTS = {**{v.value: v.value for v in Verdict}, "fault": N_("fault")}
_VERDICT_REASON = re.compile(r"([a-z-]+): (.*)", re.S)


def verdict(kind: str | None) -> str:
    """A verdict's name in the request's language (an unknown one as it is)."""
    return _(VERDICTS[kind]) if kind in VERDICTS else kind or ""


def said(text: str, game: str | None = None) -> str:
    """A text the core or the game ``game`` wrote for people (:mod:`kothkit.messages`: a board's
    title, a game's summary or outcome) in the request's language; English if no message fits it."""
    return _said(text, game, 2)


def _said(text: str, game: str | None, depth: int) -> str:
    lang = current()
    if lang == DEFAULT or not text:
        return text
    catalogs = [c for c in (languages()[lang], game_language(game, lang)) if c is not None]
    for c in catalogs:
        if text in c.known:
            return c.translations.gettext(text)
    for c in catalogs:
        found = messages.match(text, c.said)
        if found is not None:
            msgid, values = found
            if depth:
                values = {k: _reason(v, game, depth - 1) for k, v in values.items()}
            return messages.fill(c.translations.gettext(msgid), values)
    return text


def reason(text: str, game: str | None = None) -> str:
    """A game's reason (a verdict and its cause: ``timeout: no reply within 2 s``, or how the game
    ended) in the request's language, the quote of a bot's stderr kept as it is; the journal holds
    the English (old journals too), so the cause is fitted to the messages of the core and of the game."""
    if current() == DEFAULT or not text:
        return text
    return _reason(text, game, 2)


def _reason(text: str, game: str | None, depth: int) -> str:
    public, quote = split_reason(text)
    m = _VERDICT_REASON.fullmatch(public)
    if m is not None and m.group(1) in VERDICTS:
        out = _("%(verdict)s: %(reason)s", verdict=verdict(m.group(1)), reason=_said(m.group(2), game, depth))
    else:
        out = _said(public, game, depth)
    if quote:
        out = _("%(reason)s; stderr: %(quote)s", reason=out, quote=quote.removeprefix("stderr: "))
    return out


def number(n: float | int) -> str:
    """``n`` as the language writes numbers (thousands separated)."""
    return format_decimal(n, locale=Locale.parse(current()))


def zone() -> datetime.tzinfo:
    """The time zone of the page being made (UTC outside a challenge's page)."""
    return _zone.get()


def set_zone(tz: datetime.tzinfo) -> None:
    """Write times in ``tz`` from now on in this context (a request's task)."""
    _zone.set(tz)


@contextlib.contextmanager
def in_zone(tz: datetime.tzinfo) -> Iterator[None]:
    """Write times in ``tz`` inside the block."""
    token = _zone.set(tz)
    try:
        yield
    finally:
        _zone.reset(token)


def _offset(d: datetime.datetime) -> str:
    """``UTC`` for UTC itself, else the offset as a deadline is written (``+08:00``)."""
    off = d.utcoffset()
    if d.tzinfo is datetime.UTC or (off is not None and not off and d.tzname() in ("UTC", "UTC+00:00", None)):
        return "UTC"
    return d.isoformat(timespec="minutes")[-6:] if off is not None else "UTC"


def when(t: float | None) -> str:
    """A Unix time as the language writes a date and time, in the page's time zone (:func:`zone`),
    which it names (``UTC``, ``+08:00``), or "" for none."""
    if not t:
        return ""
    d = datetime.datetime.fromtimestamp(t, datetime.UTC).astimezone(zone())
    text = format_datetime(d, "medium", tzinfo=d.tzinfo, locale=Locale.parse(current()))
    return f"{text} {_offset(d)}"


def day(d: datetime.datetime) -> str:
    """A date and time (an aware datetime: a deadline) in the page's time zone, to the minute:
    ``2026-05-31 23:59+08:00``."""
    return d.astimezone(zone()).isoformat(sep=" ", timespec="minutes")


#: The admin log's targets and details (``admin_log``: kept in English, as the server prints them),
#: with ``{name}`` placeholders; :func:`admin_text` shows them in the reader's language.
ADMIN_TEXTS = (N_("from {file}; {n} skipped"), N_("{challenge} submission {id}"),
               # How the host shares the CPU (kothkit.procs.contain.fair_cpu, kothkit.serve.host)
               N_("a waiting bot is frozen (freezer cgroup {version}): it cannot take its opponent's CPU"),
               N_("a waiting bot is NOT frozen (no writable freezer cgroup): what it leaves running shares its "
                  "opponent's core"),
               N_("the game allows pondering: each bot of a game has a core of its own"),
               N_("the game allows pondering, but {jobs} job(s) on {n} core(s) leave a game's two bots one core to "
                  "share"),
               N_("the game allows pondering, but {jobs} job(s) on {n} core(s) leave a game's two bots one core to "
                  "share (--jobs {fair} gives each bot its own)"),
               N_("the Play page's bots have a core the ladder leaves free, under a CPU quota of {share} core"),
               N_("the Play page's bots share a core with the ladder's games (no core left for them: --jobs, or the "
                  "machine's cores), under a CPU quota of {share} core"))


def admin_text(text: str) -> str:
    """A target or detail of the admin log in the request's language (as it is if no message fits)."""
    if current() == DEFAULT or not text:
        return text
    if text in ADMIN_TEXTS:  # (a message without values)
        return gettext(text)
    found = messages.match(text, messages.ordered(ADMIN_TEXTS))
    if found is None:
        return text
    msgid, values = found
    return messages.fill(gettext(msgid), values)


#: The host's own lines at the head of a failed build's output (kothkit.bots.build,
#: kothkit.serve.host: English in the database), with ``{name}`` placeholders; the compiler's
#: output after them stays as it is.  :func:`build_output` shows them in the reader's language.
BUILD_TEXTS = (N_("build failed ({command} exited with {code})"),
               N_("build took longer than {seconds} s (killed, with all it started)"),
               N_("build failed (memory: it went over its {mb} MiB, build_memory_mb; killed, with all it started)"),
               N_("build command not found: {command}"), N_("cannot run the build: {error}"),
               N_("the brain cannot be loaded: {error}"), N_("the build left no brain to run"),
               N_("the build ended its worker (host error)"),
               N_("[... {n} more bytes of build output dropped]"))


#: A colon as each language writes it after a sentence (Chinese: full width).
COLON = {"zh_CN": "\uff1a"}


def _build_line(line: str) -> str:
    head, colon = (line[:-1], COLON.get(current(), ":")) if line.endswith(":") else (line, "")
    found = messages.match(head, messages.ordered(BUILD_TEXTS)) if "{" not in head else None
    if found is None:
        if head in BUILD_TEXTS:  # (a message without values)
            return _(head) + colon
        return line
    msgid, values = found
    return messages.fill(gettext(msgid), values) + colon


def build_output(text: str) -> str:
    """A build's output in the request's language: the host's first and last lines (how the build
    failed, what was dropped) translated, the compiler's own lines as they are."""
    if current() == DEFAULT or not text:
        return text
    lines = text.split("\n")
    lines[0] = _build_line(lines[0])
    if len(lines) > 1:
        lines[-1] = _build_line(lines[-1])
    return "\n".join(lines)


def phase_text(phase: Any) -> str:
    """A challenge's phase (kothkit.serve.host.Phase) in a few words, in the request's language,
    its dates in the page's time zone."""
    if phase.name == "before":
        return _("submissions open at %(when)s", when=day(phase.opens))
    if phase.name == "closed":
        return _("closed at %(when)s: the last games are being played", when=day(phase.closes))
    if phase.name == "final":
        return _("closed at %(when)s: the standings are final", when=day(phase.closes))
    if phase.name == "open" and phase.closes is not None:
        return _("open until %(when)s", when=day(phase.closes))
    return _("open") if phase.name == "open" else phase.text


def replay_words() -> dict[str, str]:
    """A replay page's own words (kothkit.results.replay.WORDS) in the request's language."""
    return {
        "move {at} of {last}": _("move {at} of {last}"),
        "Before the first move. {players} ({bot} opens).": _("Before the first move. {players} ({bot} opens)."),
        " vs ": _(" vs "),
        "Move {move}: {bot} replied in {ms} ms": _("Move {move}: {bot} replied in {ms} ms"),
        "seat {seat}": _("seat {seat}"),
        "judge \u2192 {bot}: {line}": _("judge \u2192 {bot}: {line}"),
        "rejected: {why}": _("rejected: {why}"),
        "Winner: {bot}": _("Winner: {bot}"),
        "Draw": _("Draw"),
        "{place}. {bot}": _("{place}. {bot}"),
        "{place}. {bot}: {points} points": _("{place}. {bot}: {points} points"),
        "left the game: {verdict}": _("left the game: {verdict}"),
        "Verdict: {verdict} against {bot}": _("Verdict: {verdict} against {bot}"),
        "Late reply (not played): {bot} answered {reply} after {ms} ms":
            _("Late reply (not played): {bot} answered {reply} after {ms} ms"),
        "pause": _("pause"),
        "play": _("play"),
        "[end]": _("[end]"),
        "[move {move}]": _("[move {move}]"),
        "No picture: {problem} (the board is shown as text)": _("No picture: {problem} (the board is shown as text)"),
        "{game} game #{index}: {players}": _("{game} game #{index}: {players}"),
        "id {id}": _("id {id}"),
        "seed {seed}": _("seed {seed}"),
        "round {round}": _("round {round}"),
        "move": _("move"),
        "Logs": _("Logs"),
        "first (Home)": _("first (Home)"),
        "previous (\u2190)": _("previous (\u2190)"),
        "play / pause (space)": _("play / pause (space)"),
        "next (\u2192)": _("next (\u2192)"),
        "last (End)": _("last (End)"),
    }


def install(env: jinja2.Environment) -> None:
    """Give ``env``'s templates ``_``/``gettext``/``ngettext`` (Jinja2's i18n extension, new-style:
    values are escaped and filled by name) in the request's language, and the ``number`` filter."""
    env.add_extension("jinja2.ext.i18n")
    env.install_gettext_callables(gettext, ngettext, newstyle=True)  # type: ignore[attr-defined]
    env.filters["number"] = number
    env.filters["verdict"] = verdict
    env.globals["reason"] = reason
    env.globals["admin_text"] = admin_text
    env.filters["build_output"] = build_output
    env.globals["languages"] = LANGUAGES
    env.globals["lang"] = current


# -- the catalogs' upkeep (python -m kothkit.serve.i18n) -----------------------------------------------

def extract() -> Catalog:
    """Every message of the site's code and templates, with where each is."""
    from babel.messages.extract import extract as extract_messages
    from babel.messages.extract import extract_from_dir

    root = Path(__file__).resolve().parent.parent
    catalog = Catalog(domain=DOMAIN, project="kothkit")
    for folder, method in SOURCES:
        pattern = "**.py" if method == "python" else "**.html"
        func = "python" if method == "python" else "jinja2.ext:babel_extract"
        options = {"**.html": {"extensions": "jinja2.ext.i18n", "trim_blocks": "true", "lstrip_blocks": "true"}}
        for filename, lineno, message, comments, context in extract_from_dir(
                root / folder, [(pattern, func)], options_map=options, keywords={"_": None, "N_": None, "gettext": None,
                                                                                  "ngettext": (1, 2),
                                                                                  "pgettext": ((1, "c"), 2)}):
            if "/" in filename and folder == "serve" and not filename.endswith(".py"):
                continue
            catalog.add(message, None, [(f"kothkit/{folder}/{filename}", lineno)], auto_comments=comments,
                        context=context)
    for v in Verdict:  # (VERDICTS: the words of the verdicts' names)
        catalog.add(v.value, None, [("kothkit/game.py", 0)])
    # Babel's extractor skips f-strings' values: "f'{_(\"you lose\")}'" is a message too.
    for path in sorted((root / "serve").glob("*.py")):
        for lineno, found in marked(path):
            if found and found not in catalog:
                catalog.add(found, None, [(f"kothkit/serve/{path.name}", lineno)])
    for name in SAY_SOURCES:
        with (root / name).open("rb") as f:
            for lineno, message, comments, context in extract_messages("python", f, keywords={"say": None}):
                if isinstance(message, str):
                    catalog.add(message, None, [(f"kothkit/{name}", lineno)], auto_comments=comments, context=context)
    return catalog


#: The names a message is marked with in the site's Python code.
MARKERS = ("_", "N_", "gettext", "ngettext")


def marked(path: Path, markers: tuple[str, ...] = MARKERS) -> Iterator[tuple[int, str | None]]:
    """Every call of a marker in the Python file ``path`` (also inside an f-string's values, which
    Babel's extractor does not read): its line and its message (None: not a string literal)."""
    import ast

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        f = node.func
        name = f.id if isinstance(f, ast.Name) else None
        if name not in markers:
            continue
        first = node.args[0]
        yield node.lineno, first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
        if name == "ngettext" and len(node.args) > 1:
            plural = node.args[1]
            if isinstance(plural, ast.Constant) and isinstance(plural.value, str):
                yield node.lineno, plural.value


def update() -> None:
    """Merge the extracted messages into each .po file: English's translations are the ids;
    another language's new messages are left empty to translate."""
    from babel.messages.pofile import write_po

    for code in LANGUAGES:
        template = extract()  # (a catalog's update may share the template's messages)
        path = po_path(code)
        if path.exists():
            with path.open("rb") as f:
                catalog = read_po(f, locale=code, domain=DOMAIN)
        else:
            catalog = Catalog(locale=code, domain=DOMAIN, project="kothkit")
        catalog.update(template, no_fuzzy_matching=True)
        for m in catalog:
            if m.id and code == DEFAULT:
                m.string = m.id
        catalog.obsolete.clear()
        catalog.fuzzy = False
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as f:
            # Files without line numbers: a catalog changes when its messages do, not when code moves.
            write_po(f, catalog, width=0, omit_header=False, sort_output=False, include_lineno=False)


if __name__ == "__main__":
    update()
