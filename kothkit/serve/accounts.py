"""Accounts of ``kothkit serve``: users, sign-in sessions and the sign-in throttle.

Four tables of the host's ``host.sqlite`` belong here: ``users`` (login, password hash, nickname,
admin, must_change), ``sessions`` (the SHA-256 of each session cookie, never the cookie itself, with
its login and CSRF token) and ``login_failures`` (recent failed sign-ins, by login and by address),
and ``hashing``, empty but in the state folders of kothkit's tests (:class:`Hashing`).
Passwords are hashed with Argon2id (pwdlib).  A roster comes from a CSV (``kothkit users add``):
as in the course's platform, the first password is the student number (the login) unless the CSV
gives one, and the first sign-in must set a new password and a nickname.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re
import secrets
import sqlite3
import threading
import time
import unicodedata
from pathlib import Path

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

_SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    login TEXT PRIMARY KEY,
    hash TEXT NOT NULL,
    nickname TEXT,
    nickname_key TEXT UNIQUE,
    admin INTEGER NOT NULL DEFAULT 0,
    must_change INTEGER NOT NULL DEFAULT 1,
    created REAL NOT NULL
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
CREATE TABLE IF NOT EXISTS hashing (time_cost INTEGER NOT NULL, memory_cost INTEGER NOT NULL,
                                    parallelism INTEGER NOT NULL);
"""


class AccountError(ValueError):
    """A request about accounts that cannot be done; the message is fit to show the user."""


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
    failure leaves the window."""

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


def check_login(login: str) -> str:
    if not LOGIN_RE.fullmatch(login or ""):
        raise AccountError(f"login {login!r}: use 1 to 64 letters, digits and . _ @ -")
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
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.state_dir / DB_FILE, timeout=30, check_same_thread=False,
                                   isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(_SCHEMA)
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

    def user(self, login: str) -> User | None:
        rows = self._q("SELECT login, nickname, admin, must_change FROM users WHERE login = ?", (login,))
        return User(rows[0][0], rows[0][1], bool(rows[0][2]), bool(rows[0][3])) if rows else None

    def users(self) -> list[User]:
        return [User(r[0], r[1], bool(r[2]), bool(r[3]))
                for r in self._q("SELECT login, nickname, admin, must_change FROM users ORDER BY login")]

    def nicknames(self) -> dict[str, str]:
        """Every login with the name the pages show for it."""
        return {login: nick or login for login, nick in self._q("SELECT login, nickname FROM users")}

    def add(self, login: str, password: str | None = None, *, nickname: str | None = None, admin: bool = False,
            must_change: bool = True) -> User:
        """A new user; the password defaults to the login (the student number of the roster)."""
        check_login(login)
        nick = clean_nickname(nickname) if nickname else None
        digest = self._hasher.hash(password if password else login)
        try:
            self._q("INSERT INTO users (login, hash, nickname, nickname_key, admin, must_change, created) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (login, digest, nick, nick.casefold() if nick else None, int(admin), int(must_change), time.time()))
        except sqlite3.IntegrityError:
            if self.user(login) is not None:
                raise AccountError(f"user {login!r} exists already") from None
            raise AccountError(f"the nickname {nick!r} is taken") from None
        user = self.user(login)
        assert user is not None  # (just added)
        return user

    def add_csv(self, path: Path) -> tuple[list[User], list[str]]:
        """Users from a CSV with a header naming the column ``login`` (or ``student_id``) and, if
        wanted, ``password``, ``nickname``, ``admin`` (1/yes/true).  Returns the users added and the
        rows skipped (existing logins), each as "file:line: why"; a wrong row is an error naming its
        line, and then nothing is added."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as e:
            raise AccountError(f"{path}: cannot read it: {e}") from None
        reader = csv.DictReader(io.StringIO(text))
        fields = [f.strip().lower() for f in (reader.fieldnames or [])]
        key = "login" if "login" in fields else "student_id" if "student_id" in fields else None
        if key is None:
            raise AccountError(f"{path}:1: the header has no column 'login' (or 'student_id'): {reader.fieldnames}")
        rows: list[tuple[int, dict]] = []
        seen: set[str] = set()
        for row in reader:
            line = reader.line_num
            row = {(k or "").strip().lower(): (v or "").strip() for k, v in row.items() if k is not None}
            login = row.get(key, "")
            if not login and not any(row.values()):
                continue
            try:
                check_login(login)
                if row.get("nickname"):
                    clean_nickname(row["nickname"])
            except AccountError as e:
                raise AccountError(f"{path}:{line}: {e}") from None
            if login in seen:
                raise AccountError(f"{path}:{line}: login {login!r} appears twice")
            seen.add(login)
            rows.append((line, row | {"login": login}))
        added, skipped = [], []
        for line, row in rows:
            if self.user(row["login"]) is not None:
                skipped.append(f"{path}:{line}: {row['login']} exists already (unchanged)")
                continue
            try:
                added.append(self.add(row["login"], row.get("password") or None, nickname=row.get("nickname") or None,
                                      admin=row.get("admin", "").lower() in ("1", "yes", "true", "y")))
            except AccountError as e:
                skipped.append(f"{path}:{line}: {e}")
        return added, skipped

    def reset_password(self, login: str, password: str | None = None) -> None:
        """Set the password (default: the login again) and force a change at the next sign-in;
        the user's sessions end."""
        if self.user(login) is None:
            raise AccountError(f"no user {login!r}")
        digest = self._hasher.hash(password if password else login)
        self._q("UPDATE users SET hash = ?, must_change = 1 WHERE login = ?", (digest, login))
        self._q("DELETE FROM sessions WHERE login = ?", (login,))
        self._q("DELETE FROM login_failures WHERE key = ?", ("login:" + login,))

    def set_admin(self, login: str, admin: bool = True) -> None:
        if self.user(login) is None:
            raise AccountError(f"no user {login!r}")
        self._q("UPDATE users SET admin = ? WHERE login = ?", (int(admin), login))

    def change(self, login: str, old_password: str, new_password: str, nickname: str) -> User:
        """The account form: the current password, a new one (or the same one, once it is not the
        first), and the nickname."""
        user = self.user(login)
        if user is None:
            raise AccountError(f"no user {login!r}")
        if not self._check_hash(login, old_password):
            raise AccountError(_("the current password is wrong"))
        nick = clean_nickname(nickname)
        if new_password or user.must_change:
            if new_password == login or new_password == old_password:
                raise AccountError(_("choose a new password: not your login, not the old password"))
            if len(new_password) < MIN_PASSWORD or len(new_password) > MAX_PASSWORD:
                raise AccountError(_("a new password has %(min)s to %(max)s characters",
                                     min=MIN_PASSWORD, max=MAX_PASSWORD))
        try:
            if new_password:
                digest = self._hasher.hash(new_password)
                self._q("UPDATE users SET hash = ? WHERE login = ?", (digest, login))
            self._q("UPDATE users SET nickname = ?, nickname_key = ?, must_change = 0 WHERE login = ?",
                    (nick, nick.casefold(), login))
        except sqlite3.IntegrityError:
            raise AccountError(_("the nickname %(nick)s is taken: choose another", nick=repr(nick))) from None
        user = self.user(login)
        assert user is not None  # (found above; users are never deleted)
        return user

    # -- sign-in -------------------------------------------------------------------------------------

    def _check_hash(self, login: str, password: str) -> bool:
        rows = self._q("SELECT hash FROM users WHERE login = ?", (login,))
        if not rows or len(password) > MAX_PASSWORD:
            self._hasher.verify(password[:MAX_PASSWORD], self._dummy)
            return False
        ok, newer = self._hasher.verify_and_update(password, rows[0][0])
        if ok and newer:
            self._q("UPDATE users SET hash = ? WHERE login = ?", (newer, login))
        return ok

    def _throttled(self, keys: dict[str, int], now: float) -> float:
        """Seconds until a sign-in is allowed for these keys (0: now)."""
        wait = 0.0
        since = now - self.throttle.window
        for key, limit in keys.items():
            rows = self._q("SELECT at FROM login_failures WHERE key = ? AND at > ? ORDER BY at DESC LIMIT ?",
                           (key, since, limit))
            if len(rows) >= limit:
                wait = max(wait, rows[-1][0] + self.throttle.window - now)
        return wait

    def sign_in(self, login: str, password: str, address: str) -> User | None:
        """The user if the login and password are right, else None (which part was wrong is not
        said).  Raises :class:`Throttled` after too many failures for the login or the address."""
        now = time.time()
        keys = {"login:" + login[:200]: self.throttle.per_login, "addr:" + address: self.throttle.per_address}
        wait = self._throttled(keys, now)
        if wait > 0:
            raise Throttled(wait)
        if self._check_hash(login, password):
            self._q("DELETE FROM login_failures WHERE key = ?", ("login:" + login,))
            return self.user(login)
        self._q("DELETE FROM login_failures WHERE at < ?", (now - self.throttle.window,))
        for key in keys:
            self._q("INSERT INTO login_failures (key, at) VALUES (?, ?)", (key, now))
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
        rows = self._q("SELECT s.csrf, u.login, u.nickname, u.admin, u.must_change FROM sessions s "
                       "JOIN users u ON u.login = s.login WHERE s.token_hash = ? AND s.expires > ?",
                       (_digest(token), time.time()))
        if not rows:
            return None
        csrf, login, nick, admin, must = rows[0]
        return Session(User(login, nick, bool(admin), bool(must)), csrf)

    def close_session(self, token: str | None) -> None:
        if token:
            self._q("DELETE FROM sessions WHERE token_hash = ?", (_digest(token),))


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
