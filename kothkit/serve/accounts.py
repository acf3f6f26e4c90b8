"""Accounts of ``kothkit serve``: users, sign-in sessions and the sign-in throttle.

Five tables of the host's ``host.sqlite`` belong here: ``users`` (login, password hash, nickname,
admin, must_change, disabled), ``sessions`` (the SHA-256 of each session cookie, never the cookie
itself, with its login and CSRF token), ``login_failures`` (recent sign-in attempts not yet known
right, by login and by address), ``admin_log`` (who did what, when, on the admin pages and with
``kothkit users``), and ``hashing``, empty but in the state folders of kothkit's tests (:class:`Hashing`).
The state folder is made private to the host's user (0700) and ``host.sqlite`` 0600.
Passwords are hashed with Argon2id (pwdlib).  A roster comes from a CSV (``kothkit users add``):
as in the course's platform, the first password is the student number (the login) unless the CSV
gives one or the admin asks for generated ones (:func:`generate_password`, printed once), and the
first sign-in must set a new password and a nickname.  An account whose first password is still
unchanged is *unclaimed* (``User.must_change``: the admin pages and ``kothkit users list`` say so).
A new password must be one zxcvbn (a maintained strength estimator: dictionaries, keyboard patterns,
repeats, l33t, the login itself) rates at least :data:`MIN_STRENGTH`.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import re
import secrets
import sqlite3
import tempfile
import threading
import time
import unicodedata
from pathlib import Path
from typing import Any

import attrs
from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher

from kothkit.serve.i18n import _

DB_FILE = "host.sqlite"
#: A session lasts this long after sign-in (seconds).
SESSION_TTL = 14 * 24 * 3600
LOGIN_RE = re.compile(r"[A-Za-z0-9_.@-]{1,64}")
MAX_NICKNAME = 40
MIN_PASSWORD = 8
MAX_PASSWORD = 1024
#: zxcvbn's score (0-4) a new password needs: 3 is "safely unguessable" (about 10^8 guesses and more).
MIN_STRENGTH = 3
#: zxcvbn reads this many characters of a password at most (its time grows fast with the length, and
#: zxcvbn 4.5 refuses longer ones): a longer password is rated by its start.
STRENGTH_CHARS = 72
#: The letters of generated passwords: no look-alikes (0/O, 1/l/I) for a TA to read out or hand out.
_GENERATED = "abcdefghijkmnpqrstuvwxyz23456789"
#: The passwords refused as too common (compared without case), shipped with kothkit.
COMMON_PASSWORDS_FILE = Path(__file__).with_name("common_passwords.txt")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    login TEXT PRIMARY KEY,
    hash TEXT NOT NULL,
    nickname TEXT,
    nickname_key TEXT UNIQUE,
    admin INTEGER NOT NULL DEFAULT 0,
    must_change INTEGER NOT NULL DEFAULT 1,
    created REAL NOT NULL,
    disabled INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS sessions (
    token_hash TEXT PRIMARY KEY,
    login TEXT NOT NULL REFERENCES users(login) ON DELETE CASCADE,
    csrf TEXT NOT NULL,
    created REAL NOT NULL,
    expires REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_login ON sessions(login);
CREATE TABLE IF NOT EXISTS login_failures (key TEXT NOT NULL, at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS login_failures_key ON login_failures(key, at);
CREATE TABLE IF NOT EXISTS admin_log (at REAL NOT NULL, admin TEXT NOT NULL, action TEXT NOT NULL,
                                      target TEXT NOT NULL DEFAULT '', detail TEXT NOT NULL DEFAULT '');
CREATE TABLE IF NOT EXISTS hashing (time_cost INTEGER NOT NULL, memory_cost INTEGER NOT NULL,
                                    parallelism INTEGER NOT NULL);
"""


class AccountError(ValueError):
    """A request about accounts that cannot be done; the message is fit to show the user."""


class Disabled(AccountError):
    """The login and password are right, but the account is disabled (said only to whoever knows
    the password: to others it is a wrong login or password, as an unknown login is)."""

    def __init__(self) -> None:
        super().__init__(_("this account is disabled: ask the course's staff"))


class Throttled(AccountError):
    """Too many failed sign-ins lately; ``retry_after`` seconds until the next try is allowed."""

    def __init__(self, retry_after: float):
        self.retry_after = max(1.0, retry_after)
        super().__init__(_("too many failed sign-ins: try again in %(seconds)s s",
                           seconds=int(self.retry_after + 0.999)))


@attrs.frozen
class User:
    login: str
    nickname: str | None
    admin: bool
    must_change: bool
    disabled: bool = False

    @property
    def shown(self) -> str:
        """The name on the pages: the nickname once chosen, else the login."""
        return self.nickname or self.login


@attrs.frozen
class Session:
    user: User
    csrf: str


@attrs.frozen
class Throttle:
    """At most ``per_login`` failed sign-ins for one login, and ``per_address`` from one address,
    within ``window`` seconds; past that every sign-in (right or wrong) is refused until the oldest
    failure leaves the window.  An attempt counts as a failure from before its password is checked
    (so that attempts at once cannot all be checked), and is taken back if the password was right."""

    per_login: int = 5
    per_address: int = 30
    window: float = 900.0


@attrs.frozen
class Hashing:
    """Argon2id's costs for new password hashes: pwdlib's defaults (argon2-cffi's RFC 9106 low-memory
    profile: 3 passes over 64 MiB, 4 lanes), about 0.1-0.2 s a hash.

    Cheaper costs are for tests only (:data:`TEST_HASHING`): a state folder made by
    ``Accounts(state, hashing=...)`` keeps them in its ``host.sqlite``, so that the ``kothkit serve``
    and ``kothkit users`` commands later run on that folder hash as cheaply.  No command or setting
    of kothkit gives other costs: a host's state always has the defaults.
    """

    time_cost: int = 3
    memory_cost: int = 65536
    parallelism: int = 4

    def hasher(self) -> PasswordHash:
        return PasswordHash((Argon2Hasher(time_cost=self.time_cost, memory_cost=self.memory_cost,
                                          parallelism=self.parallelism),))


#: The cheapest costs Argon2id allows (a hash in well under a millisecond): for tests' state folders only.
TEST_HASHING = Hashing(time_cost=1, memory_cost=8, parallelism=1)


def clean_nickname(text: str) -> str:
    """A nickname as stored: NFC, spaces squeezed, no control characters; an error when empty or
    too long.  HTML in it is kept as text (pages escape it)."""
    text = unicodedata.normalize("NFC", text)
    text = "".join(" " if unicodedata.category(ch).startswith(("C", "Z")) else ch for ch in text)
    text = " ".join(text.split())
    if not text:
        raise AccountError(_("choose a nickname: it is shown on the Scoreboard"))
    if len(text) > MAX_NICKNAME:
        raise AccountError(_("a nickname has at most %(n)s characters", n=MAX_NICKNAME))
    return text


_common: frozenset[str] | None = None


def common_passwords() -> frozenset[str]:
    """The shipped list of passwords too common to be allowed (lower case)."""
    global _common
    if _common is None:
        lines = COMMON_PASSWORDS_FILE.read_text(encoding="utf-8").splitlines()
        _common = frozenset(x.strip().casefold() for x in lines if x.strip() and not x.startswith("#"))
    return _common


def check_password(login: str, password: str) -> None:
    """An :class:`AccountError` if ``password`` may not be a new password of ``login``."""
    if password.casefold() == login.casefold():
        raise AccountError(_("choose a new password: not your login"))
    if len(password) < MIN_PASSWORD or len(password) > MAX_PASSWORD:
        raise AccountError(_("a new password has %(min)s to %(max)s characters", min=MIN_PASSWORD, max=MAX_PASSWORD))
    if password.casefold() in common_passwords() or len(set(password)) < 3:
        raise AccountError(_("this password is among the most common ones (easily guessed): choose another"))
    from zxcvbn import zxcvbn

    if zxcvbn(password[:STRENGTH_CHARS], user_inputs=[login])["score"] < MIN_STRENGTH:
        raise AccountError(_("this password is too easy to guess (a common word, a keyboard row, a repeat, or "
                             "your login with a little added): choose a longer one, for example three or four "
                             "uncommon words"))


def generate_password() -> str:
    """A first password for a TA to hand out: 15 random letters and digits in three groups (75 bits)."""
    return "-".join("".join(secrets.choice(_GENERATED) for _i in range(5)) for _g in range(3))


def private_folder(folder: Path) -> None:
    """Make ``folder`` (made if missing) readable by the host's user only (0700)."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    if folder.stat().st_mode & 0o077:
        folder.chmod(0o700)


def private_file(path: Path) -> None:
    """Make the SQLite database ``path`` (made empty if missing) and its ``-wal`` and ``-shm`` files
    readable by the host's user only (0600), before or after its connections are open.

    Never through a descriptor of the file: closing any descriptor of a database drops every POSIX
    lock this process's connections hold on it, and another program (``kothkit users``, an online
    backup) then takes itself for the last connection, checkpoints and deletes the write-ahead log
    under this process, whose later writes vanish.  A missing file is made as a private temporary
    file (its descriptor closed before the file has the database's name) and then linked to the
    name, which fails if another made it meanwhile; an existing one is changed by its path."""
    path = Path(path)
    if not path.exists():
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)  # (0600)
        os.close(fd)
        try:
            os.link(tmp, path)
        except OSError:  # made meanwhile; or a file system without hard links (SQLite makes it, 0644:
            pass  # the state folder is 0700, and a later call makes it 0600)
        finally:
            os.unlink(tmp)
    for f in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        try:
            if f.stat().st_mode & 0o077:
                f.chmod(0o600)
        except FileNotFoundError:
            pass


def is_login(nick: str, login: str) -> bool:
    """Whether ``nick`` would show ``login`` itself: the same text, or for a login that holds a
    digit (a student number such as ``S1234567``) the same in any case.  A login that is a plain
    name (``ann``) may be shown as that name (``Ann``): its owner chose to."""
    if nick == login:
        return True
    return any(ch.isdigit() for ch in login) and nick.casefold() == login.casefold()


def login_shape(text: str) -> str:
    """``text``'s shape, as logins are compared to nicknames: every digit ``9``, every letter ``a``
    (without case), the rest as it is (``S1234567`` and ``s7654321`` are both ``a9999999``)."""
    return "".join("9" if ch.isdigit() else "a" if ch.isalpha() else ch for ch in text.casefold())


def check_login(login: str) -> str:
    if not LOGIN_RE.fullmatch(login or ""):
        raise AccountError(_("login %(login)s: use 1 to 64 letters, digits and . _ @ -", login=repr(login)))
    return login


@attrs.define
class Accounts:
    """The users and sessions in ``state_dir/host.sqlite``; safe to use from several threads."""

    state_dir: Path
    throttle: Throttle = Throttle()
    #: Given: the costs kept for this state folder (tests only, see :class:`Hashing`); None: the
    #: folder's own (the defaults unless a test made it).
    hashing: Hashing | None = None
    _db: sqlite3.Connection = attrs.field(init=False)
    _lock: threading.Lock = attrs.field(init=False, factory=threading.Lock)
    _hasher: PasswordHash = attrs.field(init=False)
    _dummy: str = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self.state_dir = Path(self.state_dir)
        private_folder(self.state_dir)
        # SQLite makes the -wal and -shm files with the database's own permissions.
        private_file(self.state_dir / DB_FILE)
        self._db = sqlite3.connect(self.state_dir / DB_FILE, timeout=30, check_same_thread=False,
                                   isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(_SCHEMA)
        columns = {r[1] for r in self._db.execute("PRAGMA table_info(users)")}
        if "disabled" not in columns:  # (a state folder from before accounts could be disabled)
            self._db.execute("ALTER TABLE users ADD COLUMN disabled INTEGER NOT NULL DEFAULT 0")
        if "roster" not in columns:  # (one from before the roster's other columns were kept)
            self._db.execute("ALTER TABLE users ADD COLUMN roster TEXT NOT NULL DEFAULT '{}'")
        with self._db:
            if self.hashing is not None:
                self._db.execute("DELETE FROM hashing")
                if self.hashing != Hashing():
                    self._db.execute("INSERT INTO hashing VALUES (?, ?, ?)", attrs.astuple(self.hashing))
            row = self._db.execute("SELECT time_cost, memory_cost, parallelism FROM hashing").fetchone()
        self.hashing = Hashing(*row) if row else Hashing()
        self._hasher = self.hashing.hasher()
        # Checked against when the login is unknown, so that a wrong login takes as long as a wrong password.
        self._dummy = self._hasher.hash(secrets.token_hex(16))

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _q(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    # -- users ---------------------------------------------------------------------------------------

    def _tx(self, steps) -> Any:
        """``steps(db)`` in one write transaction (BEGIN IMMEDIATE: other writers, of this process or
        another, wait): all of its changes are made, or none."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                result = steps(self._db)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
            return result

    def user(self, login: str) -> User | None:
        rows = self._q(f"SELECT {_USER_COLUMNS} FROM users WHERE login = ?", (login,))
        return _user(rows[0]) if rows else None

    def users(self) -> list[User]:
        return [_user(r) for r in self._q(f"SELECT {_USER_COLUMNS} FROM users ORDER BY login")]

    def log(self, admin: str, action: str, target: str = "", detail: str = "") -> None:
        """Keep one admin action (who, what, on whom) with its time."""
        self._q("INSERT INTO admin_log (at, admin, action, target, detail) VALUES (?, ?, ?, ?, ?)",
                (time.time(), admin, action, target, detail[:2000]))

    def admin_log(self, limit: int = 500) -> list[tuple[float, str, str, str, str]]:
        """The latest admin actions, newest first: (time, admin, action, target, detail)."""
        return [tuple(r) for r in self._q("SELECT at, admin, action, target, detail FROM admin_log "
                                          "ORDER BY rowid DESC LIMIT ?", (limit,))]

    def nicknames(self) -> dict[str, str]:
        """Every login with the name the pages show for it."""
        return {login: nick or login for login, nick in self._q("SELECT login, nickname FROM users")}

    def roster(self) -> dict[str, dict[str, str]]:
        """Each user's other columns of the roster that added them (a real name, a class...), by
        login: the columns in the roster's order; empty for a user added without such columns."""
        return {login: json.loads(extra or "{}") for login, extra in self._q("SELECT login, roster FROM users")}

    def add(self, login: str, password: str | None = None, *, nickname: str | None = None, admin: bool = False,
            must_change: bool = True, roster: dict[str, str] | None = None) -> User:
        """A new user; the password defaults to the login (the student number of the roster).
        ``roster``: the roster's other columns of this user, kept (see :meth:`roster`)."""
        check_login(login)
        nick = clean_nickname(nickname) if nickname else None
        if nick is not None and is_login(nick, login):
            raise AccountError(_("the nickname %(nick)s is the login itself (a login is private, a nickname "
                                 "everyone's)", nick=repr(nick)))
        if self._q("SELECT 1 FROM users WHERE nickname_key = ? AND login != ?", (login.casefold(), login)):
            raise AccountError(_("login %(login)s is another user's nickname", login=repr(login)))
        if nick is not None and self._q("SELECT 1 FROM users WHERE lower(login) = ?", (nick.casefold(),)):
            raise AccountError(_("the nickname %(nick)s is a login", nick=repr(nick)))
        digest = self._hasher.hash(password if password else login)
        try:
            self._q("INSERT INTO users (login, hash, nickname, nickname_key, admin, must_change, created, roster) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (login, digest, nick, nick.casefold() if nick else None, int(admin), int(must_change), time.time(),
                     json.dumps(roster or {}, ensure_ascii=False)))
        except sqlite3.IntegrityError:
            if self.user(login) is not None:
                raise AccountError(_("user %(login)s exists already", login=repr(login))) from None
            raise AccountError(_("the nickname %(nick)s is taken", nick=repr(nick))) from None
        user = self.user(login)
        assert user is not None  # (just added)
        return user

    def add_csv(self, path: Path, text: str | None = None, *,
                generated: dict[str, str] | None = None) -> tuple[list[User], list[str]]:
        """Users from a CSV with a header naming the column ``login`` (or ``student_id``) and, if
        wanted, ``password``, ``nickname``, ``admin`` (1/yes/true); its other columns (a real name...)
        are kept with each user (:meth:`roster`).  Returns the users added and the rows skipped
        (existing logins), each as "file:line: why"; a wrong row (a bad login or nickname, a login
        twice, a nickname twice or that is a login of the file or of another user) is an error
        naming its line, and then nothing is added.  ``text``: the CSV's text (an upload), ``path``
        only names it.  ``generated``: a row without a password gets a generated one (not the
        login), put in this dict (login -> password) for the caller to show once."""
        path = Path(path)
        if text is None:
            try:
                text = path.read_text(encoding="utf-8-sig")
            except (OSError, UnicodeDecodeError) as e:
                raise AccountError(_("%(file)s: cannot read it: %(error)s", file=path, error=e)) from None
        text = text.removeprefix("\ufeff")
        reader = csv.DictReader(io.StringIO(text))
        fields = [f.strip().lower() for f in (reader.fieldnames or [])]
        key = "login" if "login" in fields else "student_id" if "student_id" in fields else None
        if key is None:
            raise AccountError(_("%(file)s:1: the header has no column 'login' (or 'student_id'): %(header)s",
                                 file=path, header=reader.fieldnames))
        own = {key, "login", "student_id", "password", "nickname", "admin"}
        rows: list[tuple[int, dict, dict]] = []
        seen: set[str] = set()
        for row in reader:
            line = reader.line_num
            extra = {k.strip(): (v or "").strip() for k, v in row.items()
                     if k is not None and k.strip() and k.strip().lower() not in own and not isinstance(v, list)}
            row = {(k or "").strip().lower(): (v or "").strip() for k, v in row.items()
                   if k is not None and not isinstance(v, list)}
            login = row.get(key, "")
            if not login and not any(row.values()):
                continue
            try:
                check_login(login)
                if row.get("nickname"):
                    clean_nickname(row["nickname"])
            except AccountError as e:
                raise AccountError(_("%(file)s:%(line)s: %(error)s", file=path, line=line, error=e)) from None
            if login in seen:
                raise AccountError(_("%(file)s:%(line)s: login %(login)s appears twice", file=path, line=line,
                                     login=repr(login)))
            seen.add(login)
            rows.append((line, row | {"login": login}, extra))
        # A nickname is never a login, of this file or of another user, nor twice in the file.
        logins = {r["login"].casefold() for _l, r, _e in rows}
        nicks: set[str] = set()
        for line, row, _e in rows:
            nick = clean_nickname(row["nickname"]) if row.get("nickname") else None
            if nick is None:
                continue
            others = logins - {row["login"].casefold()}
            if is_login(nick, row["login"]) or nick.casefold() in others or self._q(
                    "SELECT 1 FROM users WHERE lower(login) = ? AND login != ?", (nick.casefold(), row["login"])):
                raise AccountError(_("%(file)s:%(line)s: the nickname %(nick)s is a login", file=path, line=line,
                                     nick=repr(nick)))
            if nick.casefold() in nicks:
                raise AccountError(_("%(file)s:%(line)s: the nickname %(nick)s appears twice", file=path, line=line,
                                     nick=repr(nick)))
            nicks.add(nick.casefold())
        added, skipped = [], []
        for line, row, extra in rows:
            if self.user(row["login"]) is not None:
                skipped.append(_("%(file)s:%(line)s: %(login)s exists already (unchanged)", file=path, line=line,
                                 login=row["login"]))
                continue
            password = row.get("password") or None
            if password is None and generated is not None:
                password = generate_password()
            try:
                added.append(self.add(row["login"], password, nickname=row.get("nickname") or None,
                                      admin=row.get("admin", "").lower() in ("1", "yes", "true", "y"), roster=extra))
                if generated is not None and not row.get("password"):
                    generated[row["login"]] = password or ""
            except AccountError as e:
                skipped.append(_("%(file)s:%(line)s: %(error)s", file=path, line=line, error=e))
        return added, skipped

    def reset_password(self, login: str, password: str | None = None, *, generate: bool = False) -> str:
        """Set the password (default: the login again; ``generate``: a generated one) and force a
        change at the next sign-in; the user's sessions end.  Returns the password set."""
        if self.user(login) is None:
            raise AccountError(f"no user {login!r}")
        if not password:
            password = generate_password() if generate else login
        digest = self._hasher.hash(password)

        def steps(db: sqlite3.Connection) -> None:
            db.execute("UPDATE users SET hash = ?, must_change = 1 WHERE login = ?", (digest, login))
            db.execute("DELETE FROM sessions WHERE login = ?", (login,))
            db.execute("DELETE FROM login_failures WHERE key = ?", ("login:" + login,))

        self._tx(steps)
        return password

    def set_admin(self, login: str, admin: bool = True) -> None:
        if self.user(login) is None:
            raise AccountError(f"no user {login!r}")
        self._q("UPDATE users SET admin = ? WHERE login = ?", (int(admin), login))

    def set_disabled(self, login: str, disabled: bool = True) -> None:
        """A disabled user cannot sign in (their sessions end); their brains stay as they are."""
        if self.user(login) is None:
            raise AccountError(f"no user {login!r}")

        def steps(db: sqlite3.Connection) -> None:
            db.execute("UPDATE users SET disabled = ? WHERE login = ?", (int(disabled), login))
            if disabled:
                db.execute("DELETE FROM sessions WHERE login = ?", (login,))

        self._tx(steps)

    def change(self, login: str, old_password: str, new_password: str, nickname: str,
               keep_session: str | None = None, address: str | None = None) -> User:
        """The account form: the current password, a new one (or none: keep it, once it is not the
        first), and the nickname.  Every field is checked before anything is written, and then all
        of it is written in one transaction: a refused form changes nothing.  A new password ends
        every session of the account but ``keep_session`` (the cookie of the form's own).

        The current password is checked as a sign-in's is (counted first, by the same throttle: a
        stolen session cannot try passwords here faster than at the sign-in form), and the
        transaction writes only if that password and ``keep_session`` are still valid then: a
        change made meanwhile by another form (which ended this session) wins, and this one says
        that nothing was changed."""
        user = self.user(login)
        if user is None:
            raise AccountError(f"no user {login!r}")
        keys = {"login:" + login[:200]: self.throttle.per_login}
        if address is not None:
            keys["addr:" + address] = self.throttle.per_address
        wait, ids = self._attempt(keys, time.time())
        if wait > 0:
            raise Throttled(wait)
        checked = self._verify(login, old_password)
        if checked is None:
            raise AccountError(_("the current password is wrong: nothing was changed"))
        self._tx(lambda db: db.executemany("DELETE FROM login_failures WHERE rowid = ?", [(i,) for i in ids]))
        nick = clean_nickname(nickname)
        if new_password or user.must_change:
            try:
                check_password(login, new_password)
            except AccountError as e:
                raise AccountError(_("%(why)s: nothing was changed", why=e)) from None
            if new_password == old_password:
                raise AccountError(_("choose a new password, not the current one: nothing was changed"))
        # Hashed before the transaction (a tenth of a second), so that it holds the database briefly.
        digest = self._hasher.hash(new_password) if new_password else None
        keep = _digest(keep_session) if keep_session else ""

        if is_login(nick, login):  # (the login is private: the nickname is everyone's)
            raise AccountError(_("a nickname is shown to everyone: choose one that is not your login "
                                 "(nothing was changed)"))

        def steps(db: sqlite3.Connection) -> None:
            now = db.execute("SELECT hash FROM users WHERE login = ?", (login,)).fetchone()
            ended = keep and not db.execute("SELECT 1 FROM sessions WHERE token_hash = ?", (keep,)).fetchone()
            if now is None or now[0] != checked or ended:
                raise AccountError(_("the current password is wrong: nothing was changed"))
            # A nickname shaped like a login that holds a digit (a student number) is refused whether
            # that login exists or not: the form must not tell who is on the roster.
            shapes = {login_shape(x) for (x,) in db.execute("SELECT login FROM users") if any(c.isdigit() for c in x)}
            if login_shape(nick) in shapes:
                raise AccountError(_("a nickname is shown to everyone: choose one that does not look like a login "
                                     "(such as a student number) (nothing was changed)"))
            taken = db.execute("SELECT 1 FROM users WHERE login != ? AND (nickname_key = ? OR lower(login) = ?)",
                               (login, nick.casefold(), nick.casefold())).fetchone()
            if taken:
                raise AccountError(_("the nickname %(nick)s is taken: choose another (nothing was changed)",
                                     nick=repr(nick)))
            if digest is not None:
                db.execute("UPDATE users SET hash = ? WHERE login = ?", (digest, login))
                db.execute("DELETE FROM sessions WHERE login = ? AND token_hash != ?", (login, keep))
            db.execute("UPDATE users SET nickname = ?, nickname_key = ?, must_change = 0 WHERE login = ?",
                       (nick, nick.casefold(), login))

        try:
            self._tx(steps)
        except sqlite3.IntegrityError:
            raise AccountError(_("the nickname %(nick)s is taken: choose another (nothing was changed)",
                                 nick=repr(nick))) from None
        user = self.user(login)
        assert user is not None  # (found above; users are never deleted)
        return user

    # -- sign-in -------------------------------------------------------------------------------------

    def _verify(self, login: str, password: str) -> str | None:
        """The hash stored for ``login`` if ``password`` is right (brought up to the current costs
        if it was made at others), else None; an unknown login costs a hash all the same."""
        rows = self._q("SELECT hash FROM users WHERE login = ?", (login,))
        if not rows or len(password) > MAX_PASSWORD:
            self._hasher.verify(password[:MAX_PASSWORD], self._dummy)
            return None
        ok, newer = self._hasher.verify_and_update(password, rows[0][0])
        if not ok:
            return None
        if newer:
            self._q("UPDATE users SET hash = ? WHERE login = ? AND hash = ?", (newer, login, rows[0][0]))
            return str(newer)
        return str(rows[0][0])

    def _check_hash(self, login: str, password: str) -> bool:
        return self._verify(login, password) is not None

    def _attempt(self, keys: dict[str, int], now: float) -> tuple[float, list[int]]:
        """Count one sign-in attempt for these keys, before its password is checked, in one
        transaction: (0, the rows that count it) if it may go on, else (seconds to wait, [])."""

        def steps(db: sqlite3.Connection) -> tuple[float, list[int]]:
            since = now - self.throttle.window
            db.execute("DELETE FROM login_failures WHERE at < ?", (since,))
            wait = 0.0
            for key, limit in keys.items():
                rows = db.execute("SELECT at FROM login_failures WHERE key = ? AND at > ? ORDER BY at DESC LIMIT ?",
                                  (key, since, limit)).fetchall()
                if len(rows) >= limit:
                    wait = max(wait, rows[-1][0] + self.throttle.window - now)
            if wait > 0:
                return wait, []
            ids = []
            for key in keys:
                cur = db.execute("INSERT INTO login_failures (key, at) VALUES (?, ?)", (key, now))
                ids.append(int(cur.lastrowid or 0))
            return 0.0, ids

        result: tuple[float, list[int]] = self._tx(steps)
        return result

    def sign_in(self, login: str, password: str, address: str) -> User | None:
        """The user if the login and password are right, else None (which part was wrong is not
        said).  Raises :class:`Disabled` for a disabled account whose password is right (to others
        it is a wrong password), and :class:`Throttled` after too many failures for the login or
        the address: each attempt counts before its password is checked."""
        now = time.time()
        keys = {"login:" + login[:200]: self.throttle.per_login, "addr:" + address: self.throttle.per_address}
        wait, ids = self._attempt(keys, now)
        if wait > 0:
            raise Throttled(wait)
        if self._check_hash(login, password):
            user = self.user(login)
            if user is None:
                return None
            if user.disabled:
                raise Disabled()

            def steps(db: sqlite3.Connection) -> None:
                db.execute("DELETE FROM login_failures WHERE key = ?", ("login:" + login,))
                db.executemany("DELETE FROM login_failures WHERE rowid = ?", [(i,) for i in ids])

            self._tx(steps)
            return user
        return None

    def open_session(self, login: str) -> str:
        """A new session for ``login``: its cookie value (only its hash is stored)."""
        token = secrets.token_urlsafe(32)
        now = time.time()
        self._q("DELETE FROM sessions WHERE expires < ?", (now,))
        self._q("INSERT INTO sessions (token_hash, login, csrf, created, expires) VALUES (?, ?, ?, ?, ?)",
                (_digest(token), login, secrets.token_urlsafe(32), now, now + SESSION_TTL))
        return token

    def session(self, token: str | None) -> Session | None:
        if not token or len(token) > 200:
            return None
        rows = self._q("SELECT s.csrf, u.login, u.nickname, u.admin, u.must_change, u.disabled FROM sessions s "
                       "JOIN users u ON u.login = s.login WHERE s.token_hash = ? AND s.expires > ? AND u.disabled = 0",
                       (_digest(token), time.time()))
        if not rows:
            return None
        csrf, *user = rows[0]
        return Session(_user(user), csrf)

    def close_session(self, token: str | None) -> None:
        if token:
            self._q("DELETE FROM sessions WHERE token_hash = ?", (_digest(token),))


_USER_COLUMNS = "login, nickname, admin, must_change, disabled"


def _user(row) -> User:
    return User(row[0], row[1], bool(row[2]), bool(row[3]), bool(row[4]))


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
