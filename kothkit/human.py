"""A person in a seat: what a game shows a person at its turn, and how it reads what they type.

A game offers human play through its match's optional :meth:`kothkit.game.Match.human`, which
returns a :class:`Turn` (:mod:`kothkit.people`) for the prompt a seat is answering: the board as
that seat may see it, what to type, the legal choices in words, and ``parse``, which turns the
person's entry into the reply a bot would have given (or raises :class:`Mistake`, saying what is
wrong).  The core asks again after a mistake, and after a reply the game itself rejects: a person
never loses by a typing slip.
"""

from __future__ import annotations

import copy
from typing import Any

from kothkit.game import GameInfo, Match, Prompt, Rejected
from kothkit.messages import say
from kothkit.people import Mistake as Mistake
from kothkit.people import Turn as Turn

#: The content "hash" of a person's seat in the journal: a person has no code to hash.  kothkit
#: verify replays such a seat's recorded replies.
HUMAN_HASH = "human"


class NoHumanPlay(Exception):
    """The game offers no play by a person (its match class has no :meth:`Match.human`)."""


def turn_of(info: GameInfo, match: Match, prompt: Prompt) -> Turn:
    """The :class:`Turn` of ``prompt``, from the game's :meth:`Match.human` (or a plugin's deprecated
    ``kothkit_human`` hook)."""
    from kothkit.plugins import legacy_answer

    if type(match).human is not Match.human:
        found: Turn | None = match.human(prompt)
    else:
        found = legacy_answer("kothkit_human", game=info, match=match, prompt=prompt)
    if found is None:
        raise NoHumanPlay(f"{info.name} does not offer play by a person (its match class has no human() method)")
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
        why = say("not allowed: {reason}", reason=rejected.reason)
        return None, why + (f"\n{turn.choices}" if turn.choices else "")
    return reply, None
