"""A person in a seat: what a game shows a person at its turn, and how it reads what they type.

A game offers human play through its plugin's optional ``kothkit_human`` hook, which returns a
:class:`Turn` for the prompt a seat is answering: the board as that seat may see it, what to type,
the legal choices in words, and ``parse``, which turns the person's entry into the reply a bot
would have given (or raises :class:`Mistake`, saying what is wrong).  The core asks again after a
mistake, and after a reply the game itself rejects: a person never loses by a typing slip.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import attrs

from kothkit.game import GameInfo, Match, Prompt, Rejected

#: The content "hash" of a person's seat in the journal: a person has no code to hash.  kothkit
#: verify replays such a seat's recorded replies.
HUMAN_HASH = "human"


class Mistake(ValueError):
    """A person's entry that does not say a move; ``str()`` says why, in the game's words."""


@attrs.frozen
class Turn:
    """What a person sees and may type at one prompt."""

    #: The board as this seat may see it (for a hidden-information game: what a bot would see).
    board: str
    #: What to type, in one line: "your move: a cell x,y".
    asks: str
    #: The person's entry -> the reply for ``Match.play``; raises :class:`Mistake` for a bad entry.
    parse: Callable[[str], Any]
    #: The legal choices in words, shown after a mistake.
    choices: str = ""
    #: A reply given without asking (a handshake such as START -> OK), or None to ask.
    auto: Any = None
    # -- for the page of ``kothkit play --web`` (optional: without, the page shows ``board`` and a box)
    #: The board as this seat may see it, as a :class:`kothkit.picture.Grid` whose cells can be clicked.
    picture: Any = None
    #: A clicked cell (row, col of ``picture``) -> its text in an entry, e.g. ``"7,8"``.
    cell: Callable[[int, int], str] | None = None
    #: How many clicked cells make an entry (the page sends it then).
    clicks: int = 1
    #: Buttons: (label, text, cells still to click); 0 cells: the text is sent as the entry at once.
    buttons: tuple[tuple[str, str, int], ...] = ()


class NoHumanPlay(Exception):
    """The game's plugin does not implement ``kothkit_human``."""


def turn_of(info: GameInfo, match: Match, prompt: Prompt) -> Turn:
    """The :class:`Turn` of ``prompt`` from the game's plugin."""
    from kothkit.plugins import plugin_manager

    found: Turn | None = plugin_manager().hook.kothkit_human(game=info, match=match, prompt=prompt)
    if found is None:
        raise NoHumanPlay(f"{info.name} does not offer play by a person (its plugin has no kothkit_human hook)")
    return found


def judge(match: Match, seat: int, reply: Any) -> Rejected | None:
    """What the game would say of ``reply``, tried on a copy: ``match`` itself is left as it is."""
    return copy.deepcopy(match).play(seat, reply)


def read_entry(turn: Turn, match: Match, seat: int, text: str) -> tuple[Any, str | None]:
    """(reply, None) for an entry the game accepts, else (None, what to tell the person)."""
    text = text.strip()
    try:
        reply = turn.parse(text)
    except Mistake as e:
        return None, f"{e}" + (f"\n{turn.choices}" if turn.choices else "")
    rejected = judge(match, seat, reply)
    if rejected is not None:
        return None, f"not allowed: {rejected.reason}" + (f"\n{turn.choices}" if turn.choices else "")
    return reply, None
