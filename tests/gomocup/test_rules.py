"""Gomocup's rules on known positions: five or more, exactly five, and black's fouls in renju
(overline, double four, double three; exactly five is never a foul; a four-three is allowed; a
three that cannot become an open four is no three)."""

from __future__ import annotations

import pytest
from kothkit_gomocup.match import GomocupMatch
from kothkit_gomocup.rules import BLACK, EXACT, FREESTYLE, RENJU, WHITE, Board, foul, wins

from kothkit.game import Setup


def board(black: str, white: str = "", size: int = 15) -> Board:
    b = Board(size)
    for colour, text in ((BLACK, black), (WHITE, white)):
        for cell in text.split():
            x, y = map(int, cell.split(","))
            b.put(x, y, colour)
    return b


def black_plays(b: Board, x: int, y: int) -> str | None:
    b.put(x, y, BLACK)
    return foul(b, x, y)


@pytest.mark.parametrize(("black", "white", "move", "why"), [
    # two open threes crossing at 7,7
    ("5,7 6,7 7,5 7,6", "", (7, 7), "a double three"),
    # a split three (X.XX) and an open three
    ("4,7 6,7 7,4 7,5", "", (7, 7), "a double three"),
    # two fours crossing at 7,7
    ("4,7 5,7 6,7 7,4 7,5 7,6", "", (7, 7), "a double four"),
    # two fours in one line: X.XXX.X
    ("1,7 3,7 5,7 7,7", "", (4, 7), "a double four"),
    # six in a row
    ("2,7 3,7 4,7 6,7 7,7", "", (5, 7), "an overline (six or more in a row)"),
    # diagonal and anti-diagonal threes
    ("5,5 6,6 9,5 8,6", "", (7, 7), "a double three"),
])
def test_black_fouls_in_renju(black, white, move, why):
    b = board(black, white)
    assert black_plays(b, *move) == why
    assert not wins(b, *move, BLACK, RENJU)


@pytest.mark.parametrize(("black", "white", "move"), [
    # a four and a three: allowed
    ("4,7 5,7 6,7 7,5 7,6", "", (7, 7)),
    # one three blocked at both ends (W X X X W) is no three
    ("5,7 6,7 7,5 7,6", "4,7 8,7", (7, 7)),
    # one three that a wall keeps from an open four (the board's edge)
    ("0,7 1,7 7,1 7,2", "", (2, 7)),
    # a single open three
    ("5,7 6,7", "", (7, 7)),
])
def test_not_fouls(black, white, move):
    assert black_plays(board(black, white), *move) is None


def test_exactly_five_wins_for_black_even_as_a_double_four():
    b = board("3,7 4,7 5,7 6,7 7,4 7,5 7,6")
    assert black_plays(b, 7, 7) is None  # five in the row; the column's four does not matter
    assert wins(b, 7, 7, BLACK, RENJU)


def test_overlines_by_rule():
    b = board("2,7 3,7 4,7 6,7 7,7")
    b.put(5, 7, BLACK)
    assert wins(b, 5, 7, BLACK, FREESTYLE) and not wins(b, 5, 7, BLACK, EXACT) and not wins(b, 5, 7, BLACK, RENJU)
    w = Board(15)
    for x in (2, 3, 4, 6, 7, 5):
        w.put(x, 3, WHITE)
    assert wins(w, 5, 3, WHITE, FREESTYLE) and wins(w, 5, 3, WHITE, RENJU) and not wins(w, 5, 3, WHITE, EXACT)


def test_a_renju_match_gives_the_game_to_white_on_black_s_foul_and_says_why():
    m = GomocupMatch(Setup(players=("b", "w"), seed=1, rules={"rule": 4, "about": False}))
    for seat, reply in [(0, "OK"), (1, "OK"), (0, "5,7"), (1, "0,0"), (0, "6,7"), (1, "0,1"), (0, "7,5"),
                        (1, "0,2"), (0, "7,6"), (1, "14,14")]:
        assert m.play(seat, reply) is None
    assert m.next().payload == "TURN 14,14"
    assert m.play(0, "7,7") is None
    assert m.outcome is not None and m.outcome.winner == 1
    assert m.outcome.reason == "black's 7,7 is a double three: a foul in renju"


def test_prompts_follow_piskvork():
    from kothkit.limits import Limits

    m = GomocupMatch(Setup(players=("a", "b"), seed=1, rules={"size": 20, "position": "9,9"},
                           limits=Limits(move_time=5, game_time=100, memory_mb=350)))
    steps = []
    for seat, reply in [(0, "OK"), (0, 'name="x"'), (1, "ok - fine"), (1, "UNKNOWN")]:
        steps.append(m.next().payload)
        assert m.play(seat, reply) is None
    assert steps == ["START 20", "ABOUT", "START 20", "ABOUT"]
    p = m.next()  # white is to move: the position has one black stone
    assert p.seat == 1 and p.payload == "DONE"
    assert [n.payload for n in p.notices] == ["INFO timeout_turn 5000", "INFO timeout_match 100000",
                                              f"INFO max_memory {350 << 20}", "INFO game_type 1", "INFO rule 0",
                                              "BOARD", "9,9,2"]
    assert m.play(1, "10,10") is None
    p = m.next()
    assert p.seat == 0 and [n.payload for n in p.notices][-3:] == ["BOARD", "9,9,1", "10,10,2"]
    assert m.play(0, " 8 , 8 ") is None
    assert m.next().payload == "TURN 8,8" and m.next().notices == ()  # INFO once (no clock: no time_left)
    assert m.play(1, "ERROR no idea").reason == "answered with 'ERROR no idea' where a move x,y was due"
    assert m.play(1, "8,8").reason == "8,8 is occupied"
    assert m.play(1, "20,3").reason == "20,3 is off the 20x20 board"
    assert m.about[0] == {"name": "x"}
    assert [x.payload for x in m.final(m.draw("test"))] == ["END", "END"]


@pytest.mark.parametrize(("rules", "problem"), [
    ({"size": 19}, "size"), ({"rule": 2}, "rule"), ({"opening": "swap2", "rule": 4}, "swap2"),
    ({"position": "1,1 1,1"}, "given twice"), ({"position": "3,3 x"}, "is not x,y"),
    ({"position": "0,0 1,0 0,1 1,1 0,2 1,2 0,3 1,3 0,4"}, "makes five"),
])
def test_bad_rules_are_refused_naming_the_setting(rules, problem):
    with pytest.raises(ValueError, match=problem):
        GomocupMatch.check_rules(rules)
