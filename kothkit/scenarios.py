"""Scenarios: scripted situations ``kothkit check`` puts a bot in, and reply shapes for exploring branches.

A game lists its own in its registration (:attr:`kothkit.GameInfo.scenarios`)::

    GameInfo(name="tictactoe", ..., scenarios=[
        Scenario("second to move", "You play O: answer the opponent's move in the corner.",
                 seat=1, script=("0 0",), bot_replies=2),
    ])

The bot under check takes ``seat``; every other seat is played by the check
itself: first the replies in ``script`` (in the order those seats are
prompted), then, for each entry of ``branch``, a legal reply of the k-th kind
(see :func:`shape`), then seeded random legal replies (``then="random"``) or a
resignation (``then="resign"``).  The opponent also resigns once the bot has
given ``bot_replies`` replies.  A resignation ends the game through
``Match.forfeit``, so the bot receives the game's end message as the winner.

Without any scenario from the game, ``kothkit check`` explores on its own:
for each seat, every combination of reply kinds the opponent can give at its
first prompts (so Swap2's three answers to the opening, and both answers to
its ``C`` prompt, are each tried once).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

THEN = ("random", "resign")


def _ints(values: Iterable[int]) -> tuple[int, ...]:
    return tuple(values)


@attrs.frozen
class Scenario:
    """One scripted situation for ``kothkit check``; see the module docstring."""

    #: Short title shown in the report, e.g. "answers the swap with W (x,y)".
    name: str
    #: What the bot is asked to handle, in plain words (shown when it fails).
    description: str = ""
    #: The bot's seat.
    seat: int = 0
    #: Replies of the other seat(s), in the order they are prompted.
    script: tuple[Any, ...] = attrs.field(default=(), converter=tuple)
    #: After the script: at each of the other seats' next prompts, a legal reply of this kind (index into shapes()).
    branch: tuple[int, ...] = attrs.field(default=(), converter=_ints)
    #: What the other seats do after script and branch: "random" legal replies, or "resign".
    then: str = attrs.field(default="random", validator=attrs.validators.in_(THEN))
    #: The other seats resign once the bot has given this many accepted replies (None: play on).
    bot_replies: int | None = None
    #: The game's seed (the bot's own seed derives from it).
    seed: int = 1
    #: Rules settings merged over the game's defaults.
    rules: Mapping[str, Any] = attrs.field(factory=dict)


_NUMBER = re.compile(r"[+-]?\d+")


def shape(reply: Any) -> str:
    """The kind of a reply: its text with every number replaced by ``#`` (``"W (3,4)"`` -> ``"W (#,#)"``).

    Non-text replies are told apart by their type and, for lists and tuples,
    by their length.
    """
    if isinstance(reply, str):
        return _NUMBER.sub("#", " ".join(reply.split()))
    if isinstance(reply, (list, tuple)):
        return f"{type(reply).__name__}[{len(reply)}]"
    return type(reply).__name__


def shapes(legal: Sequence[Any]) -> list[list[Any]]:
    """``legal`` grouped by :func:`shape`, groups in order of first appearance."""
    groups: dict[str, list[Any]] = {}
    for r in legal:
        groups.setdefault(shape(r), []).append(r)
    return list(groups.values())
