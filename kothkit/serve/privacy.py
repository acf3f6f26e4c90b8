"""Who a bot is on the site, and what of a game each visitor may read.

In a submissions challenge a brain's bot name is an HMAC of its author's login (in a state from
before that, the login itself: a student number, personal data), and the pages never show it.
A bot is shown as its author's nickname, and a URL names it by an opaque id that never changes
(an HMAC of the bot's name under a key kept in the state folder, so that nobody can test student
numbers against it).  Only the author (and admins) may still use
the bot's own name or the author's login in a URL: an old link of theirs is sent on to the new one.

A game's replay and logs are re-played from the journal as they are stored, then renamed (each
bot by its shown name) and cut down to what the visitor may read: the moves are everyone's; a
bot's stderr, DEBUG lines and the quote of its stderr in a verdict's reason are its author's
(:func:`kothkit.store.records.split_reason`).  A folder challenge's bots and logs are public: its
games are shown as they are.  The renaming and cutting of a record is
:mod:`kothkit.results.public`'s (the report a TA publishes does the same).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import re
import secrets
import tempfile
from collections.abc import Collection, Mapping
from pathlib import Path

import attrs

# A record renamed and cut down for a reader is the report's too: kothkit.results.public does it.
from kothkit.results.public import neutral, private_record, private_transcript
from kothkit.store.records import LATE_REPLY, LOG_MOVES

__all__ = ["Names", "is_public_id", "load_key", "neutral", "private_record", "private_transcript", "public_id"]

#: The file of the state folder holding the key of the public ids.
KEY_FILE = "public-ids.key"
_ID = re.compile(r"b[0-9a-f]{16}")


def load_key(state_dir: Path) -> bytes:
    """The state folder's key of the public ids, made (private to the host's user) the first time.

    Made whole before it has its name (a temporary file in the same folder, written, synced, then
    hard-linked to the name, which fails if another process won the race): a process that finds
    the file finds all of it, and every process gets the same key."""
    path = Path(state_dir) / KEY_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        fd, tmp = tempfile.mkstemp(prefix=f".{KEY_FILE}.", dir=path.parent)  # (mode 0600)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(secrets.token_bytes(32))
                f.flush()
                os.fsync(f.fileno())
            with contextlib.suppress(FileExistsError):  # (another process made it first: theirs is read)
                os.link(tmp, path)
        finally:
            os.unlink(tmp)
        _sync_folder(path.parent)
    key = path.read_bytes()
    if len(key) >= 16:
        return key
    raise RuntimeError(f"{path}: the key of the public bot ids is damaged (delete it: bots get new ids)")


def _sync_folder(folder: Path) -> None:
    """The folder's entries to disk (the key's name survives a crash as its bytes do)."""
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def public_id(key: bytes, bot: str) -> str:
    """The opaque id of a submitted brain's bot in URLs: the same for as long as the state lives."""
    return "b" + hmac.new(key, bot.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:16]


@attrs.frozen
class Names:
    """A challenge's bots as the pages show them: ``shown`` (the author's nickname, or the folder
    bot's name), ``ids`` (the name in URLs) and ``owners`` (bot -> login; submissions only)."""

    kind: str
    shown: Mapping[str, str]
    ids: Mapping[str, str]
    owners: Mapping[str, str]
    _bots: Mapping[str, str] = attrs.field(factory=dict)

    @classmethod
    def make(cls, kind: str, key: bytes, bots: Collection[str], owners: Mapping[str, str],
             nicknames: Mapping[str, str]) -> Names:
        """``owners``: bot -> login of every submitted brain; ``nicknames``: login -> nickname (a
        login without one maps to itself: such an author is shown by their bot's id)."""
        if kind != "submissions":
            return cls(kind, {b: b for b in bots}, {b: b for b in bots}, {}, {b: b for b in bots})
        ids, shown = {}, {}
        for bot in set(bots) | set(owners):
            ids[bot] = public_id(key, bot)
            login = owners.get(bot)
            nick = nicknames.get(login) if login is not None else None
            shown[bot] = nick if nick and nick != login else f"student {ids[bot][1:9]}"
        return cls(kind, shown, ids, dict(owners), {v: k for k, v in ids.items()})

    def show(self, bot: str | None) -> str:
        if bot is None:
            return ""
        return self.shown.get(bot) or (bot if self.kind != "submissions" else "?")

    def id(self, bot: str) -> str:
        return self.ids.get(bot) or (bot if self.kind != "submissions" else "unknown")

    def bot(self, key: str, login: str | None = None, admin: bool = False) -> tuple[str | None, bool]:
        """The bot a URL's ``key`` names, and whether the URL should be sent on to its id (an old
        link by the bot's name, which only its author and admins may use): (None, False) if none."""
        if self.kind != "submissions":  # a folder's bots are public: their names are their URLs
            return key, False
        found = self._bots.get(key)
        if found is not None:
            return found, False
        if self.kind == "submissions" and key in self.owners and (admin or self.owners[key] == login):
            return key, True
        if key == login or admin:  # a login (a bot's name is keyed): its author's own, and admins'
            mine = sorted(b for b, who in self.owners.items() if who == key)
            if mine:
                return mine[0], True
        return None, False

    def in_game(self, players: Collection[str]) -> dict[str, str]:
        """Each player's name inside a replay or a log: its shown name made one word (a log's keys
        with a space are the core's notes), made unique within the game."""
        out: dict[str, str] = {}
        for bot in players:
            name = re.sub(r"\s+", "_", self.show(bot).strip()) or self.id(bot)
            if name in out.values() or name in (LOG_MOVES, LATE_REPLY):
                name = f"{name}~{self.id(bot)}"
            out[bot] = name
        return out


def is_public_id(text: str) -> bool:
    return bool(_ID.fullmatch(text))
