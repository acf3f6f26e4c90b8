"""A tiny game of 3 to 8 seats for the core's tests (the bundled N-player game is its own plugin):
``rounds`` rounds of simultaneous moves (a :class:`kothkit.Round`), each seat still in the game
sends a number from 1 to 9, which is added to its points; the points are the outcome.  Program bots
get ``ROUND r``; function bots are called with ``r``.  Its bots are in tests/bots/nseat/."""

from __future__ import annotations

from pathlib import Path

import attrs

from kothkit import (
    GameInfo,
    Limits,
    Match,
    Mistake,
    Outcome,
    Prompt,
    Rejected,
    Round,
    Rule,
    Scoring,
    Setup,
    Turn,
    Verdict,
    integer,
)
from kothkit.bots.folders import BotSpec, load_bots

BOTS = Path(__file__).resolve().parents[1] / "bots" / "nseat"


class SumMatch(Match):
    RULES = {"rounds": Rule(4, integer(1, 50))}

    def __init__(self, setup: Setup) -> None:
        super().__init__(setup)
        self.n = len(setup.players)
        self.points = [0.0] * self.n
        self.round = 1
        self.played: set[int] = set()

    def encode(self, payload: object) -> str:
        return f"ROUND {payload[0]}"  # type: ignore[index]

    def next(self) -> Prompt | Round | Outcome:
        if self.outcome is not None:
            return self.outcome
        return Round(tuple(Prompt(s, (self.round,)) for s in range(self.n)
                           if s not in self.out and s not in self.played))

    def play(self, seat: int, reply: object) -> Rejected | None:
        if no := self.not_due(seat):
            return no
        if type(reply) is int:
            value = reply
        elif isinstance(reply, str) and reply.strip().isascii() and reply.strip().isdigit() and len(reply) < 10:
            value = int(reply)
        else:
            return Rejected(Verdict.INVALID_REPLY, f"not a number: {reply!r:.40}")
        if not 1 <= value <= 9:
            return Rejected(Verdict.ILLEGAL_MOVE, f"{value} is not from 1 to 9")
        self.points[seat] += value
        self.played.add(seat)
        self._round_done()
        return None

    def legal_replies(self) -> list[int]:
        """Any number from 1 to 9, for any seat asked (the kit and kothkit check play random ones)."""
        return [] if self.outcome is not None else list(range(1, 10))

    def decode(self, line: str) -> tuple[int]:
        return (int(line.split()[1]),)

    def human(self, prompt: Prompt) -> Turn:
        """A person's turn: a number from 1 to 9 (``kothkit play``)."""
        def parse(text: str) -> int:
            if not text.strip().isdigit():
                raise Mistake("type a number from 1 to 9")
            return int(text)

        return Turn(board=f"round {self.round}, your points {self.points[prompt.seat]:g}", asks="your number, 1-9",
                    parse=parse)

    def leave(self, seat: int, verdict: Verdict, reason: str) -> Outcome | None:
        gone = super().leave(seat, verdict, reason)
        if gone is None:
            self._round_done()  # the round may have waited only for this seat
        return gone

    def _round_done(self) -> None:
        if self.played | self.out == set(range(self.n)):
            self.played.clear()
            if self.round == self.rules["rounds"]:
                self.finish(f"{self.round} rounds", points=self.points)
            self.round += 1


INFO = GameInfo(name="nseat_sum", summary="numbers summed, all seats at once", match=SumMatch, seats=(3, 8),
                limits=Limits(move_time=1.0, first_reply_time=1.0, grace=0.2), function_bots=True,
                scoring=Scoring(counts="points", mean=True))


class NarrowMatch(SumMatch):
    """nseat_sum, deliberately broken at its larger tables: it says it seats 3 to 6, but takes no
    number from a seat past the fourth (kothkit check must find it at its most seats, saying so)."""

    def play(self, seat: int, reply: object) -> Rejected | None:
        if seat >= 4 and not self.not_due(seat):
            return Rejected(Verdict.ILLEGAL_MOVE, f"seat {seat}: the table has room for four")
        return super().play(seat, reply)


NARROW = attrs.evolve(INFO, name="nseat_narrow", summary="nseat_sum, broken past four seats", match=NarrowMatch,
                      seats=(3, 6))


def program(name: str, mode: str = "steady") -> BotSpec:
    """The program bot of tests/bots/nseat/steady, named ``name``, in ``mode`` (see its bot.py)."""
    spec = load_bots([BOTS / "steady"]).bots[0]
    return attrs.evolve(spec, name=name, command=(*spec.command[:-1], mode))


def function(name: str, func: str = "steady") -> BotSpec:
    """A function bot of tests/bots/nseat/funcs.py, named ``name``."""
    spec = load_bots([f"{BOTS / 'funcs.py'}:{func}"]).bots[0]
    return attrs.evolve(spec, name=name)


def register() -> None:
    """Register the game with kothkit's plugin manager, in this process (as an installed plugin is)."""
    from kothkit.plugins import plugin_manager

    pm = plugin_manager()
    if not pm.is_registered(_PLUGIN):
        pm.register(_PLUGIN, name="nseat_game")


def _plugin() -> object:
    from kothkit import hookimpl

    class NseatPlugin:
        @hookimpl
        def kothkit_games(self) -> list[GameInfo]:
            return [INFO, NARROW]

    return NseatPlugin()


_PLUGIN = _plugin()


if __name__ == "__main__":
    # ``python nseat_game.py ARGS``: the kothkit command with this game installed (a real process).
    import sys

    register()
    from kothkit.cli import main

    sys.argv[0] = "kothkit"
    main()
