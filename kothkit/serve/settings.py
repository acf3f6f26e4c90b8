"""A challenge's ``[serve]`` table: how ``kothkit serve`` hosts it.

::

    [serve]
    kind = "submissions"      # or "folder" (the default): bots are the challenge's bot folders
    title = "Gomoku 12x12"    # shown on the pages (default: the folder's name)
    titles = { zh_CN = "12×12 五子棋" }  # the title in a site language (en, zh_CN) other than the title's
    timezone = "Asia/Shanghai"  # the pages' times (default: the zone of closes, else of opens, else UTC)
    max_bytes = 1_000_000     # largest source file accepted
    min_interval = 60         # seconds between two submissions of one author
    per_day = 20              # submissions per author in any 24 hours
    build_time = 60           # seconds a build may take (then it is killed: build failed)
    build_seconds_per_day = 600  # seconds of builds per author in any 24 hours (default: 600)
    build_memory_mb = 1024    # real memory a build may use (then it is killed: build failed, memory)
    build_processes = 256     # processes (tasks) a build may run at once
    check = true              # a brain that built plays a validation pair before the ladder (default: false)
    check_against = "threat"  # the bundled bot it plays (default: the first by name)
    check_failed_replaces = true  # a brain that fails the check still replaces the author's previous one
    play_own = true           # a student may play their own latest brain on the Play page (default: true)
    play_all = false          # anyone may play every author's latest brain there (default: false)
    opens = 2026-02-01T09:00:00+01:00   # submissions taken from then (default: always; a time zone is needed)
    closes = 2026-05-31T23:59:00+02:00  # and until then: then the games due are played, the standings final

    [serve.languages.c11]     # the build profiles offered (default: c11, cpp17, python3)
    label = "C11 (gcc -O2)"
    file = "brain.c"          # the fixed name the source is stored under
    build = ["gcc", "-O2", "-std=c11", "-o", "brain", "brain.c", "-lm"]
    command = ["./brain"]

    [serve.languages.python]  # a game of Python function bots (connect4_hidden): no build, no command
    label = "Python 3 function"
    entry = "bot.py:play"     # the file the source is stored under, and the function called

A wrong key or value is a :class:`SettingsError` naming the file and line.
"""

from __future__ import annotations

import datetime as dt
import enum
import re
import shlex
import tomllib
import zoneinfo
from pathlib import Path
from typing import Any

import attrs

from kothkit.serve.views import Language


class Kind(enum.StrEnum):
    """What a challenge's bots are: its bot folders, or what people submit on the site."""

    FOLDER = "folder"
    SUBMISSIONS = "submissions"


KINDS = tuple(k.value for k in Kind)
#: Seconds of builds an author gets in any 24 hours unless the challenge says otherwise.
BUILD_SECONDS_PER_DAY = 600.0
KEYS = {"kind", "title", "max_bytes", "min_interval", "per_day", "build_time", "build_seconds_per_day", "languages",
        "build_memory_mb", "build_processes", "check", "check_against", "check_failed_replaces", "play_own",
        "play_all", "opens", "closes", "keep_mb", "keep_file_mb", "titles", "timezone"}
LANGUAGE_KEYS = {"label", "file", "build", "command", "entry"}
#: A language's id, and the file name a source is stored under.
LANGUAGE_ID = re.compile(r"[A-Za-z0-9_.+-]{1,32}")
SOURCE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")

DEFAULT_LANGUAGES = (
    Language("c11", "C11 (gcc -O2 -std=c11)", "brain.c",
             ("gcc", "-O2", "-std=c11", "-o", "brain", "brain.c", "-lm"), ("./brain",)),
    Language("cpp17", "C++17 (g++ -O2 -std=c++17)", "brain.cpp",
             ("g++", "-O2", "-std=c++17", "-o", "brain", "brain.cpp"), ("./brain",)),
    Language("python3", "Python 3", "brain.py", (), ("python3", "brain.py")),
)


class SettingsError(Exception):
    """A wrong ``[serve]`` table; the message names the file and line."""


@attrs.frozen
class ServeSettings:
    kind: Kind = attrs.field(default=Kind.FOLDER, converter=Kind)
    title: str | None = None
    max_bytes: int = 1_000_000
    min_interval: float = 60.0
    per_day: int = 20
    build_time: float = 60.0
    build_seconds_per_day: float | None = BUILD_SECONDS_PER_DAY
    build_memory_mb: int = 1024
    build_processes: int = 256
    #: MiB on disk all of one author's submissions of the challenge may keep (sources, build output).
    keep_mb: int = 256
    #: MiB on disk one file of a built brain may take (its binary, anything its build left).
    keep_file_mb: int = 64
    languages: tuple[Language, ...] = DEFAULT_LANGUAGES
    #: The check before the ladder (kothkit.serve.validation).
    check: bool = False
    check_against: str | None = None
    check_failed_replaces: bool = True
    #: Whom the Play page offers besides the bundled bots (kothkit.serve.playsite).
    play_own: bool = True
    play_all: bool = False
    #: When submissions open and close (aware datetimes; None: no such date).
    opens: dt.datetime | None = None
    closes: dt.datetime | None = None
    #: The title in other languages of the site: (language code, title).
    titles: tuple[tuple[str, str], ...] = ()
    #: The IANA name of the zone the pages' times are in (None: that of closes, else of opens, else UTC).
    timezone: str | None = None

    def language(self, lang_id: str) -> Language | None:
        return next((lang for lang in self.languages if lang.id == lang_id), None)

    def zone(self) -> dt.tzinfo:
        """The time zone the challenge's pages write times in: ``timezone``, else the zone its
        deadline (``closes``, else ``opens``) is written in, else UTC."""
        if self.timezone is not None:
            return zoneinfo.ZoneInfo(self.timezone)
        for d in (self.closes, self.opens):
            if d is not None and d.tzinfo is not None:
                return d.tzinfo
        return dt.UTC


def _header(table: str) -> str:
    """A regex for the header line ``[table]`` (dotted keys may have spaces around the dots)."""
    dotted = r"\s*\.\s*".join(re.escape(part) for part in table.split("."))
    return rf"^\s*\[\s*{dotted}\s*\]\s*$"


def _line(text: str, key: str, table: str | None) -> int | None:
    start = 0
    if table:
        m = re.search(_header(table), text, re.M)
        if not m:
            return None
        start = m.end()
    m = re.compile(rf"^\s*{re.escape(key)}\s*=", re.M).search(text, start)
    return text.count("\n", 0, m.start()) + 1 if m else None


def load(path: str | Path) -> ServeSettings:
    """The ``[serve]`` table of the challenge file at ``path`` (a folder or its kothkit.toml);
    the defaults (a folder challenge) when it has none."""
    p = Path(path)
    if p.is_dir():
        p = p / "kothkit.toml"
    try:
        text = p.read_text(encoding="utf-8", errors="replace")
    except OSError as e:
        raise SettingsError(f"{p}: cannot read it: {e.strerror}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"line (\d+)", str(e))
        raise SettingsError(f"{p}:{m.group(1) if m else '?'}: invalid TOML: {e}") from None
    return parse(data.get("serve"), p, text)


def parse(table: Any, p: Path, text: str) -> ServeSettings:
    """Check and read ``table`` (the decoded ``[serve]`` table of ``p``, whose text is ``text``)."""

    def err(msg: str, key: str | None = None, where: str | None = "serve") -> SettingsError:
        if key is not None:
            line = _line(text, key, where)
        else:
            m = re.search(_header(where or "serve"), text, re.M)
            line = text.count("\n", 0, m.start()) + 1 if m else None
        return SettingsError(f"{p}:{line}: [{where}] {msg}" if line else f"{p}: [{where}] {msg}")

    if table is None:
        return ServeSettings()
    if not isinstance(table, dict):
        raise err("must be a table", None, None)
    for k in table:
        if k not in KEYS:
            raise err(f"unknown key {k!r} (known: {', '.join(sorted(KEYS))})", k)
    kind = table.get("kind", "folder")
    if kind not in KINDS:
        raise err(f"kind must be \"folder\" or \"submissions\", got {kind!r}", "kind")
    title = table.get("title")
    if title is not None and (not isinstance(title, str) or not title.strip() or len(title) > 200):
        raise err(f"title must be a string of 1-200 characters, got {title!r}", "title")

    def number(k: str, default, least, most, whole: bool):
        v = table.get(k, default)
        ok = (type(v) is int) if whole else (type(v) in (int, float))
        if not ok or not least <= v <= most:
            kind_of = "an integer" if whole else "a number"
            raise err(f"{k} must be {kind_of} from {least:,} to {most:,}, got {v!r}", k)
        return v

    max_bytes = number("max_bytes", 1_000_000, 1, 64 << 20, True)
    min_interval = float(number("min_interval", 60, 0, 7 * 86400, False))
    per_day = number("per_day", 20, 1, 100_000, True)
    build_time = float(number("build_time", 60, 1, 3600, False))
    build_memory_mb = number("build_memory_mb", 1024, 16, 1 << 20, True)
    build_processes = number("build_processes", 256, 8, 1 << 20, True)
    keep_mb = number("keep_mb", 256, 1, 1 << 20, True)
    keep_file_mb = number("keep_file_mb", 64, 1, 1 << 20, True)
    # (a budget by default: one author's builds cannot take the host's slots all day, issue 42)
    budget = float(number("build_seconds_per_day", BUILD_SECONDS_PER_DAY, 1, 86400, False))
    flags = {}
    for k, default in (("check", False), ("check_failed_replaces", True), ("play_own", True), ("play_all", False)):
        v = table.get(k, default)
        if type(v) is not bool:
            raise err(f"{k} must be true or false, got {v!r}", k)
        flags[k] = v
    against = table.get("check_against")
    if against is not None and (not isinstance(against, str) or not LANGUAGE_ID.fullmatch(against)):
        raise err(f"check_against must be the name of one of the game's bundled bots, got {against!r}",
                  "check_against")
    dates = {k: _date(table.get(k), k, err) for k in ("opens", "closes")}
    if dates["opens"] and dates["closes"] and dates["opens"] >= dates["closes"]:
        raise err(f"closes ({dates['closes'].isoformat()}) must come after opens ({dates['opens'].isoformat()})",
                  "closes")
    languages: tuple[Language, ...] = DEFAULT_LANGUAGES
    if "languages" in table:
        given = table["languages"]
        if not isinstance(given, dict) or not given:
            raise err("languages must be tables [serve.languages.<id>] with label, file, build and command",
                      "languages")
        languages = tuple(_language(lang_id, spec, err) for lang_id, spec in given.items())
    titles = _titles(table.get("titles"), err)
    zone = table.get("timezone")
    if zone is not None:
        try:
            if not isinstance(zone, str) or not zone.strip():
                raise ValueError(zone)
            zoneinfo.ZoneInfo(zone)
        except (ValueError, zoneinfo.ZoneInfoNotFoundError):
            raise err(f"timezone must be the name of a time zone, such as \"Asia/Shanghai\" or \"UTC\", "
                      f"got {zone!r}", "timezone") from None
    return ServeSettings(kind=kind, title=title.strip() if title else None, max_bytes=max_bytes, titles=titles,
                         timezone=zone,
                         min_interval=min_interval, per_day=per_day, build_time=build_time,
                         build_seconds_per_day=budget, languages=languages, build_memory_mb=build_memory_mb,
                         build_processes=build_processes, keep_mb=keep_mb, keep_file_mb=keep_file_mb,
                         check_against=against, opens=dates["opens"],
                         closes=dates["closes"], **flags)


#: The site's languages a title may be given in (kothkit.serve.i18n.LANGUAGES).
TITLE_LANGUAGES = ("en", "zh_CN")


def _titles(value: Any, err) -> tuple[tuple[str, str], ...]:
    """``titles = { zh_CN = "..." }``: the challenge's title in the site's languages."""
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise err("titles must be a table of a language code and its title, such as { zh_CN = \"...\" }", "titles")
    out = []
    for code, text in value.items():
        if code not in TITLE_LANGUAGES:
            raise err(f"titles: {code!r} is not one of the site's languages ({', '.join(TITLE_LANGUAGES)})",
                      "titles")
        if not isinstance(text, str) or not text.strip() or len(text) > 200:
            raise err(f"titles: the {code} title must be a string of 1-200 characters, got {text!r}", "titles")
        out.append((code, text.strip()))
    return tuple(out)


def _date(value: Any, key: str, err) -> dt.datetime | None:
    """A date with its time and time zone: a TOML offset date-time, or such a string (ISO 8601)."""
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = dt.datetime.fromisoformat(value.strip())
        except ValueError:
            raise err(f"{key} must be a date and time with a time zone, such as 2026-05-31T23:59:00+02:00, "
                      f"got {value!r}", key) from None
    if not isinstance(value, dt.datetime) or value.tzinfo is None or value.utcoffset() is None:
        raise err(f"{key} must be a date and time with a time zone (such as 2026-05-31T23:59:00+02:00 or "
                  f"...Z), got {value!r}", key)
    return value


def _argv(value: Any, key: str, where: str, err, empty_ok: bool) -> tuple[str, ...]:
    if isinstance(value, str):
        try:
            parts = shlex.split(value)
        except ValueError as e:
            raise err(f"{key}: {e}", key, where) from None
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        parts = list(value)
    else:
        raise err(f"{key} must be a list of strings or a string, got {value!r}", key, where)
    if not parts and not empty_ok:
        raise err(f"{key} is empty", key, where)
    if any("\0" in part or "\n" in part for part in parts):
        raise err(f"{key} holds a NUL or a newline", key, where)
    return tuple(parts)


def _language(lang_id: str, spec: Any, err) -> Language:
    where = f"serve.languages.{lang_id}"
    if not LANGUAGE_ID.fullmatch(lang_id):
        raise err(f"a language's id is 1-32 letters, digits, '_', '.', '+' or '-', got {lang_id!r}", None,
                  where)
    if not isinstance(spec, dict):
        raise err("must be a table with label, file, build and command", None, where)
    for k in spec:
        if k not in LANGUAGE_KEYS:
            raise err(f"unknown key {k!r} (known: {', '.join(sorted(LANGUAGE_KEYS))})", k, where)
    label = spec.get("label", lang_id)
    if not isinstance(label, str) or not label.strip() or len(label) > 100:
        raise err(f"label must be a string of 1-100 characters, got {label!r}", "label", where)
    if "entry" in spec:
        return _function_language(lang_id, label.strip(), spec, where, err)
    file = spec.get("file")
    if not isinstance(file, str) or not SOURCE_NAME.fullmatch(file) or file in ("bot.toml", "meta"):
        raise err(f"file must be a plain file name such as \"brain.c\" (letters, digits, '_', '.', '-'), "
                  f"got {file!r}", "file" if "file" in spec else None, where)
    if "command" not in spec:
        raise err("missing key 'command' (how to run the built brain, e.g. [\"./brain\"])", None, where)
    build = _argv(spec.get("build", []), "build", where, err, empty_ok=True)
    command = _argv(spec["command"], "command", where, err, empty_ok=False)
    return Language(lang_id, label.strip(), file, build, command)


def _function_language(lang_id: str, label: str, spec: dict, where: str, err) -> Language:
    """A profile of Python function bots: ``entry = "bot.py:play"`` names the file a submission is
    stored under and the function the game calls; it has no build and no command (``file``, if
    given, must be the entry's file)."""
    entry = spec["entry"]
    file, sep, func = entry.rpartition(":") if isinstance(entry, str) else ("", "", "")
    if not sep or not file.endswith(".py") or not SOURCE_NAME.fullmatch(file) or not func.isidentifier():
        raise err(f"entry must be a file name and a function, such as \"bot.py:play\", got {entry!r}", "entry",
                  where)
    for key in ("build", "command"):
        if key in spec:
            raise err(f"{key} is for programs: a Python function bot (entry) is neither built nor run as a "
                      "command", key, where)
    if "file" in spec and spec["file"] != file:
        raise err(f"file must be the entry's file ({file!r}) or left out, got {spec['file']!r}", "file", where)
    return Language(lang_id, label, file, (), (), entry)
