"""The contract of games of more than two seats (issue 38): how many a game seats, every seat's result
(points, places, the two-seat winner as before), a fault taking one seat out of the game rather than
the game out for all, and the guard accepting any seat of a Round of simultaneous moves."""

from __future__ import annotations

import pytest

from kothkit import End, GameInfo, Match, Outcome, Prompt, Rejected, Round, Scoring, Setup, Verdict
from kothkit.game import places_from_points


class Bids(Match):
    """Every seat still in bids at once, twice; the highest total wins."""

    def __init__(self, setup: Setup) -> None:
        super().__init__(setup)
        self.n = len(setup.players)
        self.totals = [0] * self.n
        self.round = 0
        self.got: set[int] = set()

    def next(self) -> Prompt | Round | Outcome:
        if self.outcome:
            return self.outcome
        return Round(tuple(Prompt(s, self.round) for s in range(self.n) if s not in self.out and s not in self.got))

    def play(self, seat: int, reply: object) -> Rejected | None:
        if no := self.not_due(seat):
            return no
        self.totals[seat] += int(reply)  # type: ignore[call-overload]
        self.got.add(seat)
        if self.got | self.out == set(range(self.n)):
            self.got.clear()
            self.round += 1
            if self.round == 2:
                self.finish("two rounds", points=self.totals)
        return None


def _info(seats: object = (3, 5)) -> GameInfo:
    return GameInfo(name="bids", summary="", match=Bids, seats=seats)  # type: ignore[arg-type]


def test_seats_a_number_or_a_range():
    assert _info(2).seat_range == (2, 2) and _info(2).two_seats
    info = _info((3, 5))
    assert info.seat_range == (3, 5) and not info.two_seats
    assert not _info(4).two_seats and _info(4).seat_range == (4, 4)
    assert info.table_size(3) == 3 and info.table_size(4) == 4 and info.table_size(40) == 5
    with pytest.raises(ValueError, match="bids needs at least 3 bots"):
        info.table_size(2)
    assert info.seats_said() == "3-5" and _info(2).seats_said() == "2"
    for bad in (0, (5, 3), (0, 2), "3", (3,), (3, 4, 5), True):
        with pytest.raises(ValueError, match="bids: GameInfo.seats"):
            _info(bad)


def test_places_from_points_places_or_winner():
    assert places_from_points([5, 5, 2]) == (1, 1, 3)
    assert places_from_points([0.5, 3.0, 1.0, 3.0]) == (4, 1, 3, 1)
    assert Outcome(None, "r", points=(1.0, 4.0, 4.0)).places_of(3) == (3, 1, 1)
    assert Outcome(None, "r", points=(9.0, 1.0), places=(2, 1)).places_of(2) == (2, 1)  # places win
    assert Outcome(1, "r").places_of(3) == (2, 1, 2)
    assert Outcome(None, "r").places_of(4) == (1, 1, 1, 1)
    # The two-seat shorthand is the record it always was.
    assert Outcome(0, "r") == Outcome(winner=0, reason="r", points=None, places=None)


def test_finish_names_the_winner_alone_in_first_place():
    m = Bids(Setup(players=("a", "b", "c"), seed=1))
    out = m.finish("end", points=[3, 7, 1])
    assert out.winner == 1 and m.outcome is out and out.places_of(3) == (2, 1, 3)
    tied = Bids(Setup(players=("a", "b", "c"), seed=1)).finish("end", places=[1, 1, 3])
    assert tied.winner is None and tied.points is None
    assert End.of(out, 1) == End.WIN and End.of(out, 0) == End.LOSS
    assert End.of(tied, 0) == End.DRAW and End.of(tied, 2) == End.LOSS
    with pytest.raises(ValueError, match="2 points for 3 seats"):
        Bids(Setup(players=("a", "b", "c"), seed=1)).finish("end", points=[1, 2])


def test_a_round_and_the_guard_of_any_of_its_seats():
    m = Bids(Setup(players=("a", "b", "c"), seed=1))
    step = m.next()
    assert isinstance(step, Round) and step.seats == (0, 1, 2)
    assert m.play(1, 4) is None
    assert m.next() == Round((Prompt(0, 0), Prompt(2, 0)))  # without the seat that played
    no = m.play(1, 4)
    assert isinstance(no, Rejected) and no.verdict == Verdict.ILLEGAL_MOVE and "seat 1" in no.reason
    assert m.play(0, 1) is None and m.play(2, 2) is None
    assert m.next() == Round((Prompt(0, 1), Prompt(1, 1), Prompt(2, 1)))


def test_leave_takes_one_seat_out_and_the_game_goes_on():
    m = Bids(Setup(players=("a", "b", "c", "d"), seed=1))
    assert m.out == set()
    assert m.leave(2, Verdict.CRASH, "died") is None
    assert m.out == {2} and m.outcome is None
    assert m.next() == Round((Prompt(0, 0), Prompt(1, 0), Prompt(3, 0)))
    assert m.leave(0, Verdict.TIMEOUT, "slow") is None
    # Fewer than two would remain: the game ends, the one seat left alone in first place.
    out = m.leave(1, Verdict.CRASH, "died too")
    assert out is not None and m.outcome is out
    assert out.winner == 3 and out.places_of(4) == (2, 2, 2, 1) and out.reason == "crash: died too"


def test_a_two_seat_fault_ends_the_game_as_before():
    m = Bids(Setup(players=("a", "b"), seed=1))
    out = m.leave(0, Verdict.CRASH, "died")
    assert out == Outcome(winner=1, reason="crash: died") and m.out == set()


def test_scoring_counts_and_forfeit():
    s = Scoring(counts="placing", by_place=[10, 6, 4], forfeit=-1)
    assert s.counts == "placing" and s.by_place == (10.0, 6.0, 4.0) and s.forfeit == -1
    assert Scoring().counts == "outcome" and Scoring().forfeit == 0.0
    with pytest.raises(ValueError):
        Scoring(counts="goals")
