"""The lowest-unique-bid match: one game as a state machine the core's referee drives.

Each round is a :class:`kothkit.game.Round`: every seat in play is asked for its bid at once, the
bids are handed to :meth:`LowBidMatch.play` one by one, and once every seat in play has bid the
round is scored (:func:`rules.round_winner`).  A seat sees the round number and last round's bids
of every seat, never another's bid of the round under way.  A seat that faults is out
(:attr:`Match.out`, kept by the base class's :meth:`Match.leave`): it bids no more, its last-round
bid shows as 0, and the game goes on among the others while two or more are in.
"""

from __future__ import annotations

from typing import Any

from kothkit.game import Match, Message, Outcome, Prompt, Rejected, Round, Setup, Verdict

from kothkit_lowbid import codec
from kothkit_lowbid.rules import NO_BID, RULES, SEATS, round_winner


class LowBidMatch(Match):
    codec = codec  # BID and END lines out, a bid in
    RULES = RULES  # rounds and max_bid

    def __init__(self, setup: Setup) -> None:
        super().__init__(setup)
        self.seats = len(setup.players)
        if not SEATS[0] <= self.seats <= SEATS[1]:
            # Never the degenerate game: with two bids, the bot that always bids 1 cannot lose.
            raise ValueError(f"lowbid seats {SEATS[0]} to {SEATS[1]} players a game, not {self.seats}")
        #: The round under way, from 1 (past the last one once the game is over).
        self.round = 1
        #: Bids of the round under way, by seat, as they are played.
        self.bids: dict[int, int] = {}
        #: Every finished round's bids in seat order (NO_BID for a seat out of the game).
        self.history: list[tuple[int, ...]] = []
        #: Every finished round's winning seat, or None when no bid was unique.
        self.winners: list[int | None] = []
        self.points = [0] * self.seats

    def prompt(self, seat: int) -> Prompt:
        """What ``seat`` is asked this round: the arguments of a function bot
        ``f(round, rounds, max_bid, seat, last_bids, state)``."""
        last = self.history[-1] if self.history else (NO_BID,) * self.seats
        return Prompt(seat, (self.round, self.rules["rounds"], self.rules["max_bid"], seat, last))

    def due(self) -> list[int]:
        """The seats whose bid this round is still to come."""
        return [s for s in range(self.seats) if s not in self.out and s not in self.bids]

    def next(self) -> Round | Outcome:
        if self.outcome is not None:
            return self.outcome
        return Round(tuple(self.prompt(s) for s in self.due()))

    def play(self, seat: int, reply: Any) -> Rejected | None:
        if no := self.not_due(seat):  # the game is over, or this seat has bid this round already
            return no
        bid = codec.parse_bid(reply, self.rules["max_bid"])
        if isinstance(bid, Rejected):
            return bid
        self.bids[seat] = bid
        self._score_if_complete()
        return None

    def leave(self, seat: int, verdict: Verdict, reason: str) -> Outcome | None:
        """The base class's (the game goes on while two seats are in); a round that waited only
        for the seat's bid is scored now."""
        ended = super().leave(seat, verdict, reason)
        if ended is None:
            self.bids.pop(seat, None)  # the seat's bid this round, if it made one, no longer counts
            self._score_if_complete()
        return ended

    def forfeit(self, seat: int, verdict: Verdict, reason: str) -> Outcome:
        """The game ends on a fault (too few seats left in it): the points so far, ``seat`` and the
        seats already out last with none.  (A game already over keeps its outcome.)"""
        if self.outcome is not None:
            return self.outcome
        return self._finish(f"{verdict}: {reason}", gone=self.out | {seat})

    def _score_if_complete(self) -> None:
        if self.outcome is not None or self.due():
            return
        bids = tuple(self.bids.get(s, NO_BID) for s in range(self.seats))
        winner = round_winner(bids)
        if winner is not None:
            self.points[winner] += 1
        self.history.append(bids)
        self.winners.append(winner)
        self.bids = {}
        self.round += 1
        if self.round > self.rules["rounds"]:
            self._finish(f"{len(self.history)} rounds", gone=self.out)

    def _finish(self, why: str, gone: set[int]) -> Outcome:
        """The outcome: every seat's points, and places by points among the seats in play with the
        seats out of the game (``gone``) sharing the last place, with no points."""
        points = [0.0 if s in gone else float(p) for s, p in enumerate(self.points)]
        inside = [points[s] for s in range(self.seats) if s not in gone]
        places = [len(inside) + 1 if s in gone else 1 + sum(q > points[s] for q in inside)
                  for s in range(self.seats)]
        said = " ".join(f"{p:g}" for p in points)
        return self.finish(f"{why}; points {said}", points=points, places=places)

    def final(self, outcome: Outcome) -> tuple[Message, ...]:
        """``END P0 ... Pn-1`` to every seat still in the game."""
        points = outcome.points if outcome.points is not None else tuple(float(p) for p in self.points)
        return tuple(Message(s, codec.Final(points)) for s in range(self.seats) if s not in self.out)

    # -- for kothkit's conformance kit ---------------------------------------------------
    def legal_replies(self) -> list[int]:
        return [] if self.outcome is not None else list(range(1, self.rules["max_bid"] + 1))

    def hidden_from(self, seat: int) -> set[tuple[int, int]]:
        """The others' bids of the round under way, as (seat, bid)."""
        return {(s, b) for s, b in self.bids.items() if s != seat}

    def reveals(self, seat: int, payload: Any, hidden: Any) -> set[tuple[int, int]]:
        """The bids of ``hidden`` that a prompt shows where it should show the round before's, as
        the record of that round has them."""
        try:
            rnd, shown = payload[0], payload[4]
            recorded = self.history[rnd - 2] if rnd >= 2 else (NO_BID,) * self.seats
            return {(s, b) for s, b in hidden if shown[s] == b != recorded[s]}
        except (TypeError, IndexError, KeyError):
            return set()

    # -- for people: drawn in views.py, so that a picture's edit changes no game's id ---------
    def render(self) -> str:
        """Every finished round's bids (the winning bid in brackets), the points, and what now."""
        names = self.setup.players
        width = max([3, *(len(str(b)) + 2 for bids in self.history for b in bids)])
        lines = [f"{'round':<7}" + " ".join(f"{'s' + str(s):>{width}}" for s in range(self.seats))]
        for i, (bids, winner) in enumerate(zip(self.history, self.winners), 1):
            cells = ("-" if b == NO_BID else f"[{b}]" if s == winner else str(b) for s, b in enumerate(bids))
            lines.append(f"{i:<7}" + " ".join(f"{c:>{width}}" for c in cells))
        lines.append(f"{'points':<7}" + " ".join(f"{p:>{width}}" for p in self.points))
        if self.outcome is not None:
            lines.append(f"over: {self.outcome.reason}")
        else:
            lines.append(f"round {self.round} of {self.rules['rounds']}: bids 1-{self.rules['max_bid']} due from "
                         + ", ".join(f"s{s} ({names[s]})" for s in self.due()))
        if self.out:
            lines.append("out: " + ", ".join(f"s{s}" for s in sorted(self.out)))
        return "\n".join(lines)

    def picture(self) -> Any:
        from kothkit_lowbid.views import picture

        return picture(self)

    def human(self, prompt: Prompt) -> Any:
        from kothkit_lowbid.views import human

        return human(prompt)
