"""The conformance kit on lowbid (a game of 3 to 10 seats, each round a Round of simultaneous bids),
and the kit's checks of such games: each catches a game that breaks the N-seat contract."""

from __future__ import annotations

import attrs
import pytest

from kothkit.game import Prompt, Round
from kothkit.testing import Kit, conformance_tests

from kothkit_lowbid.match import LowBidMatch
from kothkit_lowbid.plugin import INFO

TestConformance = conformance_tests("lowbid", rules={"rounds": 4})


def kit_of(match: type, **options) -> Kit:
    return Kit(attrs.evolve(INFO, match=match), seeds=range(3), rules={"rounds": 3}, **options)


class StillPrompted(LowBidMatch):
    """Prompts a seat that left: its leave() never puts it out."""

    def leave(self, seat, verdict, reason):
        return None


class Leaky(LowBidMatch):
    """Shows the bids made so far this round in the others' prompts."""

    def prompt(self, seat: int) -> Prompt:
        last = tuple(self.bids.get(s, 0) for s in range(self.seats))
        return Prompt(seat, (self.round, self.rules["rounds"], self.rules["max_bid"], seat, last))


class ShortPoints(LowBidMatch):
    """Ends with points for every seat but the last."""

    def finish(self, reason, *, points=None, places=None):
        outcome = super().finish(reason, points=points, places=places)
        self.outcome = attrs.evolve(outcome, points=outcome.points[:-1])
        return self.outcome


class OutOfOrder(LowBidMatch):
    """A Round whose prompts are not in seat order."""

    def next(self):
        step = super().next()
        return Round(tuple(reversed(step.prompts))) if isinstance(step, Round) else step


@pytest.mark.parametrize(("match", "check", "says"), [
    (StillPrompted, "check_leave", "is not in Match.out"),
    (Leaky, "check_hidden_information", "the prompt sent to seat 1 reveals '{(0, "),
    (ShortPoints, "check_playouts", "one for each of the 3 seats"),
    (OutOfOrder, "check_playouts", "one prompt a seat, in seat order"),
])
def test_the_kit_catches_a_game_that_breaks_the_n_seat_contract(match, check, says):
    failures = dict(kit_of(match).run([check]))
    assert check in failures and says in failures[check], failures


def test_the_kit_plays_every_number_of_seats_of_the_range():
    kit = Kit(INFO, seeds=range(8), rules={"rounds": 1})
    assert [len(set(s.seat for s in kit.playout(seed).steps)) for seed in range(8)] == [3, 4, 5, 6, 7, 8, 9, 10]
