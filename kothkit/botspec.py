"""A loaded bot as the core and a plugin's bot loaders trade it: :class:`BotSpec`, its
:class:`BotKind`, and :class:`BotError` for a bot that cannot be loaded.

Part of the plugin API (a ``kothkit_bot_loaders`` loader returns a BotSpec or raises a BotError);
reading bot folders is :mod:`kothkit.bots.folders`'s job.
"""

from __future__ import annotations

import enum
from pathlib import Path

import attrs


class BotKind(enum.StrEnum):
    """How a bot plays.  A ``str``: journals and ``--json`` carry its value."""

    #: A program over stdin/stdout, started in the core's jail.
    PROCESS = "process"
    #: A Python function (``file.py:function``), called in a worker process.
    FUNCTION = "function"
    #: A person at ``kothkit play``.
    HUMAN = "human"


def printable(text: str, keep_newlines: bool = False) -> str:
    """``text`` with control characters (terminal escapes, NUL, bidi overrides...) shown as escapes."""
    if text.isprintable():
        return text
    out = []
    for c in text:
        if c.isprintable() or (keep_newlines and c in "\n\t"):
            out.append(c)
        else:
            out.append(repr(c)[1:-1])
    return "".join(out)



class BotError(Exception):
    """A bot that cannot be loaded; ``str()`` names the file (and line) at fault."""

    def __init__(self, where: str | Path, message: str, line: int | None = None):
        self.where = str(where)
        self.line = line
        # A folder's name is a stranger's text too: printed escaped.
        loc = printable(f"{where}:{line}" if line else str(where))
        super().__init__(f"{loc}: {message}")


@attrs.frozen
class BotSpec:
    """A loaded bot: everything needed to run it, and nothing about any game."""

    name: str
    #: The bot's folder (its working directory), or the .py file of a function bot.
    path: Path
    #: How it plays (a plain string such as "function" is taken too).
    kind: BotKind = attrs.field(default=BotKind.PROCESS, converter=BotKind)
    #: argv for a process bot; relative to ``path`` as working directory.
    command: tuple[str, ...] = ()
    #: "file.py:function" for a function bot.
    entry: str | None = None
    #: Show the bot's stderr live (the legacy meta flag); it is always kept in the game's log.
    stderr: bool = False
    #: ISO date of first submission, for the "submitted" tie-breaker.
    submitted: str | None = None
    #: Build command run once before a tournament, cached by the content hash.
    build: tuple[str, ...] | None = None
    #: Source globs whose content makes the bot's hash (default: every file but HASH_IGNORE).
    sources: tuple[str, ...] | None = None
    #: Keeps files between games: never plays two games at once, sees games in schedule order.
    stateful: bool = False
    #: Content hash (sha256 hex) of the bot's sources.
    hash: str = ""
    #: The file the bot was described by (bot.toml, meta or the .py file).
    origin: Path | None = None
    #: Environment variables the bot (and its build) gets, as (name, value) pairs: its bot.toml's
    #: ``env`` table, over the challenge's and the jail's short list (docs/tournaments.md).
    env: tuple[tuple[str, str], ...] = ()
    #: An isolated function bot's folder, when not its file's folder: that one holds another
    #: bot's files too (or the same file serves two bots), so neither may write it (see
    #: :func:`private_folders`).
    workdir: Path | None = None
    #: Who wrote it, where its answer is (a web address), and its language, as a leaderboard
    #: shows them (``kothkit report --markdown``): bot.toml's ``author``, ``url`` and ``language``
    #: (the language, when not given, guessed from its command and build).
    author: str | None = None
    url: str | None = None
    language: str | None = None
