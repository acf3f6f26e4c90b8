"""The Swap2 wire format: prompts and boards round-trip, replies ignore all whitespace."""

import pytest

from kothkit_gomoku_swap2.codec import (
    Ask,
    Exit,
    decode,
    encode,
    format_board,
    format_reply,
    parse_board,
    quote,
    read_reply,
    tokenize,
)
from kothkit_gomoku_swap2.rules import Stone

STONES = (Stone(0, 0, "B"), Stone(0, 1, "W"), Stone(14, 14, "B"))


def test_board_format_matches_the_seed_example():
    assert format_board(STONES) == '[((0,0),"B"),((0,1),"W"),((14,14),"B")]'
    assert format_board(()) == "[]"


def test_prompts_match_the_seed_examples():
    assert encode(Ask("A")) == "A []"
    assert encode(Ask("B", STONES)) == 'B [((0,0),"B"),((0,1),"W"),((14,14),"B")]'
    assert encode(Ask("1", STONES)) == '1 [((0,0),"B"),((0,1),"W"),((14,14),"B")]'
    assert encode(Exit("threat")) == "EXIT threat"
    assert encode(Exit(None)) == "EXIT TIE"


@pytest.mark.parametrize(
    "payload",
    [Ask("A"), Ask("B", STONES), Ask("C", STONES), Ask("0", STONES[:1]), Ask("221", STONES), Exit("kaito"), Exit(None)],
)
def test_prompt_round_trip(payload):
    assert decode(encode(payload)) == payload


def test_board_round_trip_on_a_full_board():
    stones = tuple(Stone(x, y, "BW"[(x + y) % 2]) for y in range(15) for x in range(15))
    assert parse_board(format_board(stones)) == stones


@pytest.mark.parametrize("bad", ["", "[", "[((0,0),\"B\")", "[((0,0),\"X\")]", "[((0,0),\"B\"),]", "[((0,0),\"B\")((1,1),\"W\")]"])
def test_parse_board_refuses_non_boards(bad):
    assert parse_board(bad) is None


@pytest.mark.parametrize(
    "text, tokens",
    [
        ("(0,0) (0,12)", [(0, 0), (0, 12)]),
        ("(0 , 0) (0,12)", [(0, 0), (0, 12)]),
        ("(0,0)(0,12)", [(0, 0), (0, 12)]),
        ("\t( 0 ,\t0 )\r", [(0, 0)]),
        (" B ", ["B"]),
        ("W (3,4)", ["W", (3, 4)]),
        ("W(3,4)", ["W", (3, 4)]),
        ("  W  ( 3 , 4 )  ", ["W", (3, 4)]),
        ("(1,2)\u00a0(3,4)", [(1, 2), (3, 4)]),  # any Unicode whitespace counts
        ("(-1,15)", [(-1, 15)]),
        ("(007,08)", [(7, 8)]),
        ("", []),
    ],
)
def test_tokenize_ignores_all_whitespace(text, tokens):
    assert tokenize(text) == tokens


@pytest.mark.parametrize("text", ["b", "(1,2", "(1;2)", "(a,b)", "hello", "(1,2,3)", "((1,2))", "BW?", "(1,2)x", "(+1,2)"])
def test_tokenize_refuses_garbage(text):
    assert tokenize(text) is None


def test_huge_coordinates_parse_as_off_board_numbers():
    (cell,) = tokenize("(" + "9" * 5000 + ",1)")
    assert cell[0] > 14 and cell[1] == 1


@pytest.mark.parametrize(
    "tokens", [[(1, 2), (3, 4), (5, 6)], ["B"], ["W", (14, 0)], [(0, 0), (14, 14)], ["W"], [(7, 7)]]
)
def test_reply_round_trip(tokens):
    assert tokenize(format_reply(tokens)) == tokens


@pytest.mark.parametrize(
    "kind, text",
    [("A", "(1,2)(3,4)(5,6)"), ("B", "B"), ("B", "W(1,1)"), ("B", "(1,1)(2,2)"), ("C", "B"), ("C", "W"), ("N", "(4,4)")],
)
def test_read_reply_accepts_each_shape(kind, text):
    assert isinstance(read_reply(text, kind), list)


@pytest.mark.parametrize(
    "kind, text",
    [
        ("A", "(1,2)(3,4)"),
        ("A", "(1,2)(3,4)(5,6)(7,8)"),
        ("A", "B"),
        ("B", "W"),
        ("B", "(1,1)"),
        ("B", "B(1,1)"),
        ("B", "(1,1)(2,2)(3,3)"),
        ("C", "(1,1)"),
        ("C", "BW"),
        ("N", "B"),
        ("N", "(1,1)(2,2)"),
        ("N", ""),
    ],
)
def test_read_reply_refuses_wrong_shapes(kind, text):
    why = read_reply(text, kind)
    assert isinstance(why, str) and "expected" in why


def test_quote_truncates_long_replies():
    q = quote("x" * 1000)
    assert q.startswith("'x") and q.endswith("...'") and len(q) < 100
    assert quote(None) == "'None'"
