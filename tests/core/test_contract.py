"""What the base Match gives a game so that it writes little contract: rules declared once with their
checks, a codec named rather than wrapped, the "over or not your turn" guard, win/draw, and the
End each seat is told; and GameInfo taking its rules from the match class."""

from __future__ import annotations

import types

import pytest

from kothkit import End, GameInfo, Match, Message, Outcome, Prompt, Rejected, Rule, Setup, Verdict, integer, one_of

codec = types.SimpleNamespace(encode=lambda payload: f"TAKE {payload}", decode=lambda line: int(line.split()[1]))


class Count(Match):
    """Two seats count up in turns; whoever says the goal wins (a draw if the goal is 0)."""

    codec = codec
    RULES = {"goal": Rule(5, integer(0, 100), "the number to reach"), "mode": Rule("up", one_of("up", "fast")),
             "note": ""}
    tells_result = True

    def __init__(self, setup: Setup) -> None:
        super().__init__(setup)
        self.total, self.turn = 0, 0
        if self.rules["goal"] == 0:
            self.draw("nothing to count")

    def next(self) -> Prompt | Outcome:
        return self.outcome or Prompt(self.turn, self.total)

    def play(self, seat: int, reply: object) -> Rejected | None:
        if no := self.not_due(seat):
            return no
        self.total += 1
        if self.total == self.rules["goal"]:
            self.win(seat, "reached the goal")
        self.turn = 1 - seat
        return None


def test_rules_are_declared_once_with_their_checks():
    assert Count.check_rules({}) == {"goal": 5, "mode": "up", "note": ""}
    assert Count.check_rules({"goal": 9})["goal"] == 9
    with pytest.raises(ValueError, match=r"unknown rules setting 'gaol' \(known: goal, mode, note\)"):
        Count.check_rules({"gaol": 3})
    with pytest.raises(ValueError, match="rules setting goal must be an integer from 0 to 100, got True"):
        Count.check_rules({"goal": True})
    with pytest.raises(ValueError, match="rules setting mode must be one of 'up', 'fast', got 'slow'"):
        Count.check_rules({"mode": "slow"})
    info = GameInfo(name="count", summary="count", match=Count)
    assert dict(info.rules) == {"goal": 5, "mode": "up", "note": ""}  # GameInfo's defaults are the match's
    assert dict(info.check_rules({"goal": 7})) == {"goal": 7, "mode": "up", "note": ""}
    assert dict(GameInfo(name="count", summary="count", match=Count, rules={"goal": 3}).rules) == {"goal": 3}


def test_the_codec_is_named_not_wrapped():
    m = Count(Setup(players=("a", "b"), seed=1))
    assert m.encode(3) == "TAKE 3" and m.decode("TAKE 3") == 3
    assert Count.encode is codec.encode  # the codec's own function: no call passed on


def test_the_guard_refuses_a_reply_out_of_turn_and_after_the_end():
    m = Count(Setup(players=("a", "b"), seed=1, rules={"goal": 2}))
    assert m.play(1, "x") == Rejected(Verdict.ILLEGAL_MOVE, "seat 1 replied when seat 0 was to")
    assert m.play(0, "x") is None and m.play(1, "x") is None
    assert m.outcome == Outcome(winner=1, reason="reached the goal")
    assert m.play(0, "x") == Rejected(Verdict.ILLEGAL_MOVE, "the game is over")


def test_each_seat_is_told_its_end():
    m = Count(Setup(players=("a", "b"), seed=1, rules={"goal": 1}))
    m.play(0, "x")
    assert m.final(m.outcome) == (Message(0, End.WIN), Message(1, End.LOSS))
    drawn = Count(Setup(players=("a", "b"), seed=1, rules={"goal": 0}))
    assert drawn.next() == Outcome(None, "nothing to count")
    assert drawn.final(drawn.outcome) == (Message(0, End.DRAW), Message(1, End.DRAW))
    assert f"END {End.WIN}" == "END WIN"
