"""Submissions: the host's ``host.sqlite`` table of them, and their bot folders on disk.

Each submission is a row (author, time, language, the uploaded file's name and
size, its status, the build's output) and a folder
``submissions/<challenge>/<bot>/<id>/`` holding the source under the language's
fixed name and a ``bot.toml`` written by the host.  An author's bot is named by an HMAC of their
login (:func:`keyed_bot_name`), never by the login itself.  Rate limits are checked and
the row inserted in one transaction, so two submissions at once cannot both
slip through; when :meth:`Store.add` raises, nothing is stored.  The author's folders are
measured before that transaction (a walk of many files must not hold SQLite's write lock, which
every writer of the host waits for); inside it only a folder that came in meanwhile is walked.

Statuses stored: ``queued`` (waiting for its build), ``building``,
``build-failed``, ``active`` (the author's newest brain that built: it plays),
``replaced`` (a newer brain of the same author built).

Disk: one author's submissions of a challenge keep at most ``keep_mb`` MiB (a submission that
would go over it is refused), and a built brain's files at most ``keep_file_mb`` MiB each (a build
that leaves a larger one fails).  A brain that no longer plays (replaced, or whose build or check
failed) keeps its source and bot.toml only (:meth:`Store.keep`): a source of a few bytes can build
a binary of hundreds of MiB, and 20 of them a day would otherwise stay for good.  The host shows an
active one as ``playing`` or ``done``.  A restart puts ``building`` back to
``queued``: the build is redone.
"""

from __future__ import annotations

import builtins
import contextlib
import hashlib
import hmac
import json
import os
import shutil
import sqlite3
import stat
import sys
import threading
import time
from pathlib import Path
from typing import Any

import attrs

from kothkit.serve.errors import BadFileName, RateLimited, SubmitError, TooLarge, UnknownLanguage
from kothkit.serve.i18n import _
from kothkit.serve.settings import ServeSettings
from kothkit.serve.views import Status, Submission

SCHEMA = """
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    challenge TEXT NOT NULL,
    login TEXT NOT NULL,
    bot TEXT NOT NULL,
    time REAL NOT NULL,
    language TEXT NOT NULL,
    filename TEXT NOT NULL,
    size INTEGER NOT NULL,
    status TEXT NOT NULL,
    build_output TEXT NOT NULL DEFAULT '',
    played INTEGER NOT NULL DEFAULT 0,
    total INTEGER NOT NULL DEFAULT 0,
    build_seconds REAL NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS submissions_by_author ON submissions (challenge, login, id);
"""

DAY = 86400.0
#: Longest uploaded file name kept (bytes of UTF-8).
MAX_FILENAME = 255


#: The columns by name (a Submission's fields): a migration that adds or reorders columns cannot shift them.
COLUMNS = ", ".join(field.name for field in attrs.fields(Submission))


def bot_name(login: str) -> str:
    """The bot name of ``login``'s brains: the login itself when it is a valid bot name (1-64
    letters, digits, ``_ . + -``, not starting with a dot), else one made from its hash."""
    from kothkit.bots.folders import NAME

    if NAME.fullmatch(login) and not login.startswith("."):
        return login
    safe = "".join(c for c in login if c.isascii() and (c.isalnum() or c in "_-"))[:40]
    return f"{safe or 'user'}-{hashlib.sha256(login.encode('utf-8', 'surrogatepass')).hexdigest()[:10]}"


def keyed_bot_name(key: bytes, login: str) -> str:
    """The bot name of the brains of an author new to the state: an HMAC of the login under the
    state's key (:func:`kothkit.serve.privacy.load_key`).  A bot's name goes into its bot.toml (which
    its content hash covers) and into every game id: a name that is the login itself could be found
    again from a public hash or game id by trying the logins of a roster with a public template's
    source, this one cannot without the key."""
    mac = hmac.new(key, b"kothkit bot name\0" + login.encode("utf-8", "surrogatepass"), hashlib.sha256)
    return "u" + mac.hexdigest()[:20]


#: File extensions that name the same language (a C++ source is .cpp, .cc, .cxx or .c++).
SAME_EXTENSION = {".cc": ".cpp", ".cxx": ".cpp", ".c++": ".cpp", ".cp": ".cpp", ".hpp": ".cpp"}


def _extension(name: str) -> str:
    suffix = Path(name).suffix.lower()
    return SAME_EXTENSION.get(suffix, suffix)


def check_extension(filename: str, lang: Any, languages: Any) -> None:
    """A file whose extension is that of another of the challenge's languages and not of the one
    chosen (a ``.cpp`` sent as C11) is refused (UnknownLanguage), before anything is counted
    against the author's limits: it would only fail to build.  Other names are taken as they are."""
    ext = _extension(filename)
    if not ext or ext == _extension(lang.file):
        return
    if any(ext == _extension(other.file) for other in languages if other.id != lang.id):
        raise UnknownLanguage(_("%(file)s is a %(ext)s file, but %(language)s takes %(want)s files: choose the "
                                "language of the file (nothing was stored)", file=repr(filename), ext=ext,
                                language=lang.label, want=Path(lang.file).suffix))


def check_filename(filename: str) -> str:
    """``filename`` if it is a plain file name to show; else :class:`BadFileName`."""
    if not isinstance(filename, str) or not filename.strip():
        raise BadFileName(_("the file has no name"))
    if len(filename.encode("utf-8", "surrogatepass")) > MAX_FILENAME:
        raise BadFileName(_("the file name is longer than %(n)s bytes", n=MAX_FILENAME))
    if "\0" in filename:
        raise BadFileName(_("the file name holds a NUL character"))
    if "/" in filename or "\\" in filename or filename in (".", ".."):
        raise BadFileName(_("give the file's name alone, without a folder ('/', '\\' or '..')"))
    if not filename.isprintable():
        raise BadFileName(_("the file name holds control characters"))
    return filename


def _wait_text(seconds: float) -> str:
    s = max(1, int(seconds + 0.999))
    if s < 120:
        return _("%(n)s s", n=s)
    if s < 7200:
        return _("%(m)s min %(s)s s", m=s // 60, s=f"{s % 60:02d}")
    return _("%(h)s h %(m)s min", h=s // 3600, m=f"{s % 3600 // 60:02d}")


def _toml_str(text: str) -> str:
    # A JSON string (non-ASCII kept as is) is a TOML basic string.
    return json.dumps(text, ensure_ascii=False)


def bot_toml(name: str, language) -> str:
    """The bot.toml the host writes for a submission in ``language`` (a views.Language)."""
    lines = [f"name = {_toml_str(name)}", f"language = {_toml_str(language.id)}"]
    if language.entry is not None:
        # A Python function bot: its hash is its file's (kothkit.bots.folders).
        lines.append(f"entry = {_toml_str(language.entry)}")
        return "\n".join(lines) + "\n"
    lines.append(f"command = [{', '.join(map(_toml_str, language.command))}]")
    if language.build:
        lines.append(f"build = [{', '.join(map(_toml_str, language.build))}]")
    # The hash covers the source and this file (so the same source under another build profile is
    # another brain); never the build's output.
    lines.append(f"sources = [{_toml_str(language.file)}, \"bot.toml\"]")
    return "\n".join(lines) + "\n"


class Store:
    """``host.sqlite``'s submissions, and the folders under ``root`` (the host's state folder).

    One connection, shared by the host's threads under a lock (each call is short)."""

    def __init__(self, state_dir: Path) -> None:
        self.root = Path(state_dir)
        self.root.mkdir(parents=True, exist_ok=True)
        self.path = self.root / "host.sqlite"
        #: The state's key of bots' names (kothkit.serve.privacy.load_key), read at the first submission.
        self._key: bytes | None = None
        self._lock = threading.Lock()
        self.db = sqlite3.connect(str(self.path), timeout=30, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self.db.close()

    def folder(self, row: Submission) -> Path:
        return self.root / "submissions" / row.challenge / row.bot / str(row.id)

    def _rows(self, query: str, args: tuple = ()) -> list[Submission]:
        with self._lock:
            return [Submission(*r) for r in self.db.execute(query, args).fetchall()]

    def add(self, challenge: str, settings: ServeSettings, login: str, filename: str, language: str,
            data: bytes, now: float | None = None) -> Submission:
        """Check and store a submission (status ``queued``); raises a :class:`SubmitError` with
        nothing stored."""
        if settings.kind != "submissions":
            raise UnknownLanguage(_("this challenge takes no submissions: its bots are folders on the host"))
        lang = settings.language(language)
        if lang is None:
            offered = ", ".join(f"{x.id} ({x.label})" for x in settings.languages)
            raise UnknownLanguage(_("unknown language %(language)s; this challenge offers %(offered)s",
                                    language=repr(language), offered=offered))
        check_filename(filename)
        check_extension(filename, lang, settings.languages)
        if len(data) > settings.max_bytes:
            raise TooLarge(len(data), settings.max_bytes)
        if not data:
            raise SubmitError(_("the file is empty"))
        now = time.time() if now is None else now
        # The disk walk, before the write transaction (and without the store's lock); so is the key's
        # first read (made and synced to disk the first time).
        sizes = self._measured(self._rows(f"SELECT {COLUMNS} FROM submissions WHERE challenge=? AND login=?",
                                          (challenge, login)), {})
        if self._key is None:
            from kothkit.serve.privacy import load_key

            self._key = load_key(self.root)
        with self._lock:
            db = self.db
            db.execute("BEGIN IMMEDIATE")
            folder = None
            try:
                # An author keeps the bot name of their first brain of the challenge (a state from
                # before keyed names: their login), else gets a keyed one (keyed_bot_name).
                had = db.execute("SELECT bot FROM submissions WHERE challenge=? AND login=? ORDER BY id LIMIT 1",
                                 (challenge, login)).fetchone()
                bot = had[0] if had else keyed_bot_name(self._key, login)
                recent = db.execute("SELECT time, build_seconds FROM submissions WHERE challenge=? AND login=? "
                                    "AND time>? ORDER BY time", (challenge, login, now - DAY)).fetchall()
                times = [t for t, _b in recent]
                if times and now - times[-1] < settings.min_interval:
                    wait = times[-1] + settings.min_interval - now
                    raise RateLimited(_("one submission every %(every)s at most: you can submit again in %(wait)s",
                                        every=_wait_text(settings.min_interval), wait=_wait_text(wait)), wait)
                if len(times) >= settings.per_day:
                    wait = times[len(times) - settings.per_day] + DAY - now
                    raise RateLimited(_("at most %(n)s submissions in 24 hours: you can submit again in %(wait)s",
                                        n=settings.per_day, wait=_wait_text(wait)), wait)
                # The rows again, under the write lock: a submission of the author's that came in
                # since the walk (another thread or process) is walked now (its source: small).
                rows = [Submission(*r) for r in db.execute(
                    f"SELECT {COLUMNS} FROM submissions WHERE challenge=? AND login=?", (challenge, login))]
                kept = sum(self._measured(rows, sizes).values())
                if kept + len(data) > settings.keep_mb << 20:
                    raise SubmitError(_("your submissions of this challenge keep %(kept)s MiB on the host, and this "
                                        "challenge allows %(most)s MiB an author: ask an admin",
                                        kept=f"{kept / (1 << 20):.1f}", most=settings.keep_mb))
                budget = settings.build_seconds_per_day
                used = sum(b for _t, b in recent)
                if budget is not None and used >= budget:
                    # Free again once enough of the day's builds have left the last 24 hours.
                    for t, b in recent:
                        used -= b
                        if used < budget:  # (at the latest after the last: a budget is at least 1 s)
                            wait = t + DAY - now
                            break
                    raise RateLimited(_("your builds took %(used)s s in the last 24 hours (this challenge allows "
                                        "%(budget)s s): you can submit again in %(wait)s",
                                        used=f"{sum(b for _t, b in recent):.0f}", budget=f"{budget:g}",
                                        wait=_wait_text(wait)), wait)
                cur = db.execute("INSERT INTO submissions (challenge, login, bot, time, language, filename, size, "
                                 "status) VALUES (?,?,?,?,?,?,?,'queued')",
                                 (challenge, login, bot, now, lang.id, filename, len(data)))
                assert cur.lastrowid is not None  # (an INSERT's)
                row = Submission(cur.lastrowid, challenge, login, bot, now, lang.id, filename, len(data),
                                 Status.QUEUED, "", 0, 0, 0.0)
                folder = self.folder(row)
                try:
                    _write_bot(folder, lang, bot, data)
                except OSError as e:
                    raise SubmitError(_("the host could not store the file (%(why)s)", why=e.strerror)) from None
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                if folder is not None:  # nothing stored: neither the row nor its folder
                    shutil.rmtree(folder, ignore_errors=True)
                raise
        return row

    def kept(self, challenge: str, login: str) -> int:
        """Bytes on disk that ``login``'s submissions of ``challenge`` keep (walked outside any
        transaction)."""
        rows = self._rows(f"SELECT {COLUMNS} FROM submissions WHERE challenge=? AND login=?", (challenge, login))
        return sum(self._measured(rows, {}).values())

    def _measured(self, rows: builtins.list[Submission], sizes: dict[int, int]) -> dict[int, int]:
        """``sizes`` (bytes on disk by submission id) of ``rows``: those not in it yet are walked."""
        out = {}
        for row in rows:
            if row.id not in sizes:
                sizes[row.id] = disk_use(self.folder(row))[0]
            out[row.id] = sizes[row.id]
        return out

    def keep(self, row: Submission, settings: ServeSettings, plays: bool) -> str | None:
        """After ``row``'s build: what its folder may keep.  ``plays``: its build went well (else
        its folder keeps only its source and bot.toml).  A built brain with a file over
        ``keep_file_mb``, or whose author's submissions go over ``keep_mb`` once their brains that
        no longer play are cut to their sources, is cut to its source too: the reason is returned
        (its build fails).  None: it keeps what its build made."""
        lang = settings.language(row.language)
        kept_files = {"bot.toml", lang.file if lang is not None else ""}
        folder = self.folder(row)
        if not plays:
            _keep_only(folder, kept_files)
            return None
        total, biggest, name = disk_use(folder)
        if biggest > settings.keep_file_mb << 20:
            _keep_only(folder, kept_files)
            return _("the build left a file of %(size)s MiB (%(name)s): a brain's files may take %(most)s MiB each "
                     "(keep_file_mb)", size=f"{biggest / (1 << 20):.0f}", name=name[:100], most=settings.keep_file_mb)
        others = self._rows(f"SELECT {COLUMNS} FROM submissions WHERE challenge=? AND login=? AND id!=?",
                            (row.challenge, row.login, row.id))
        for other in others:
            if other.status in ("replaced", "build-failed", "check-failed"):
                other_lang = settings.language(other.language)
                _keep_only(self.folder(other), {"bot.toml", other_lang.file if other_lang is not None else ""})
        total += sum(disk_use(self.folder(o))[0] for o in others)
        if total > settings.keep_mb << 20:
            _keep_only(folder, kept_files)
            return _("with this build your submissions keep %(kept)s MiB on the host, and this challenge allows "
                     "%(most)s MiB an author (keep_mb)", kept=f"{total / (1 << 20):.0f}", most=settings.keep_mb)
        return None

    def get(self, sub_id: int) -> Submission | None:
        found = self._rows(f"SELECT {COLUMNS} FROM submissions WHERE id=?", (sub_id,))
        return found[0] if found else None

    def list(self, challenge: str, login: str | None = None) -> list[Submission]:
        """Newest first."""
        if login is None:
            return self._rows(f"SELECT {COLUMNS} FROM submissions WHERE challenge=? ORDER BY id DESC", (challenge,))
        return self._rows(f"SELECT {COLUMNS} FROM submissions WHERE challenge=? AND login=? ORDER BY id DESC",
                          (challenge, login))

    def with_status(self, challenge: str, *statuses: Status) -> builtins.list[Submission]:  # (list: the method above)
        """Oldest first."""
        marks = ",".join("?" * len(statuses))
        return self._rows(f"SELECT {COLUMNS} FROM submissions WHERE challenge=? AND status IN ({marks}) ORDER BY id",
                          (challenge, *statuses))

    def set_status(self, sub_id: int, status: Status, build_output: str | None = None,
                   played: int | None = None, total: int | None = None, build_seconds: float = 0.0) -> None:
        """Set a submission's status (and what is given); ``build_seconds`` adds to its builds' time."""
        with self._lock:
            self.db.execute("UPDATE submissions SET status=?, build_output=COALESCE(?, build_output), "
                            "played=COALESCE(?, played), total=COALESCE(?, total), "
                            "build_seconds=build_seconds+? WHERE id=?",
                            (status, build_output, played, total, build_seconds, sub_id))

    def requeue_building(self) -> int:
        """At start: builds cut short by a stop or a crash are queued again; how many."""
        with self._lock:
            return self.db.execute("UPDATE submissions SET status='queued' "
                                   "WHERE status IN ('building', 'checking')").rowcount


def disk_use(folder: Path) -> tuple[int, int, str]:
    """(bytes on disk of everything in ``folder``, of its largest file, that file's name); links are
    not followed, and a folder that is gone takes nothing.  Walked without recursion (os.walk
    recurses: a tree a build nested a thousand deep was a RecursionError in the host)."""
    from kothkit.bots.folders import entries_below

    total, biggest, name = 0, 0, ""
    for path, st in entries_below(folder, sys.maxsize):
        used = st.st_blocks * 512
        total += used
        if not stat.S_ISDIR(st.st_mode) and used > biggest:
            biggest, name = used, os.path.relpath(path, folder)
    return total, biggest, name


def _remove_tree(top: str) -> None:
    """Remove the folder ``top`` and all below it, links never followed, without recursion
    (shutil.rmtree of Python 3.11 recurses); what cannot be removed stays."""
    stack = [(top, False)]
    while stack:
        d, emptied = stack.pop()
        if emptied:
            with contextlib.suppress(OSError):
                os.rmdir(d)
            continue
        stack.append((d, True))
        try:
            it = os.scandir(d)
        except OSError:
            continue
        with it:
            for e in it:
                if e.is_dir(follow_symlinks=False):
                    stack.append((e.path, False))
                else:
                    with contextlib.suppress(OSError):
                        os.unlink(e.path)


def _keep_only(folder: Path, names: set[str]) -> None:
    """Remove from ``folder`` everything but the files ``names`` (a brain's source and bot.toml)."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for e in entries:
        if e.name in names and e.is_file(follow_symlinks=False):
            continue
        if e.is_dir(follow_symlinks=False):
            _remove_tree(e.path)
        else:
            with contextlib.suppress(OSError):
                os.unlink(e.path)


def _write_bot(folder: Path, lang, bot: str, data: bytes) -> None:
    """The submission's folder: its source under the language's fixed name, and its bot.toml."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    if folder.exists():  # a folder left by a row that was rolled back (the host died mid-submit)
        shutil.rmtree(folder)
    folder.mkdir()
    for name, content in ((lang.file, data), ("bot.toml", bot_toml(bot, lang).encode())):
        fd = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        with os.fdopen(fd, "wb") as f:
            f.write(content)
