"""The Swap2 match as a pure state machine: every opening branch, wins, ties, rejections."""

import pytest

from kothkit.game import Message, Outcome, Prompt, Rejected, Setup
from kothkit_gomoku_swap2.codec import Exit
from kothkit_gomoku_swap2.rules import BLACK, WHITE, Board, Stone

OPENING = "(7,7) (8,8) (7,8)"


def new(swap2, rules=None):
    return swap2.match(Setup(players=("anna", "bert"), seed=5, rules={**swap2.rules, **(rules or {})}))


def line(match):
    step = match.next()
    assert isinstance(step, Prompt)
    return step.seat, match.encode(step.payload)


def play(match, *replies):
    """Give each reply to the seat the match asks; every one must be accepted."""
    for r in replies:
        step = match.next()
        assert isinstance(step, Prompt), f"game over before {r!r}"
        assert match.play(step.seat, r) is None, r


def test_the_opener_is_asked_first_with_an_empty_board(swap2):
    m = new(swap2)
    assert line(m) == (0, "A []")
    assert m.next() == m.next()  # idempotent


def test_branch_b_the_second_player_plays_black_and_moves_first(swap2):
    m = new(swap2)
    play(m, OPENING)
    assert line(m) == (1, 'B [((7,7),"B"),((8,8),"B"),((7,8),"W")]')
    play(m, "B")
    assert m.black_seat == 1
    assert line(m) == (1, '0 [((7,7),"B"),((8,8),"B"),((7,8),"W")]')
    play(m, "(9,9)")
    assert line(m) == (0, '1 [((7,7),"B"),((8,8),"B"),((7,8),"W"),((9,9),"B")]')
    play(m, "(6,6)")
    assert line(m)[0] == 1 and line(m)[1].startswith("2 ")
    assert m.board.at(9, 9) == BLACK and m.board.at(6, 6) == WHITE


def test_branch_w_the_second_player_adds_white_and_plays_white(swap2):
    m = new(swap2)
    play(m, OPENING, "W (9,9)")
    assert m.black_seat == 0
    assert line(m) == (0, '0 [((7,7),"B"),((8,8),"B"),((7,8),"W"),((9,9),"W")]')
    play(m, "(6,6)")
    assert m.board.at(6, 6) == BLACK
    assert line(m)[0] == 1


@pytest.mark.parametrize("choice, black_seat", [("B", 0), ("W", 1)])
def test_branch_two_stones_then_the_opener_picks(swap2, choice, black_seat):
    m = new(swap2)
    play(m, OPENING, "(9,9) (10,10)")
    assert line(m) == (0, 'C [((7,7),"B"),((8,8),"B"),((7,8),"W"),((9,9),"B"),((10,10),"W")]')
    play(m, choice)
    assert m.black_seat == black_seat
    seat, text = line(m)
    assert seat == black_seat and text.startswith("0 [")
    play(m, "(0,0)")
    assert m.board.at(0, 0) == BLACK
    assert line(m)[0] == 1 - black_seat


def test_replies_may_carry_any_whitespace(swap2):
    m = new(swap2)
    play(m, " ( 7 , 7 )\t(8,8)(7,\t8) ", " W ( 9 , 9 )\r", "\t(6 ,6)  ")
    assert [(s.x, s.y, s.color) for s in m.board.stones][-2:] == [(9, 9, WHITE), (6, 6, BLACK)]


# -- wins ---------------------------------------------------------------------------
# After OPENING and "B" the second player (seat 1) is black and moves first; white
# answers far away on the left edge, where it never makes a line of its own.
FAR_WHITE = ["(0,0)", "(0,2)", "(0,4)", "(0,6)", "(0,10)", "(0,12)"]


def black_builds(swap2, cells):
    m = new(swap2)
    play(m, "(14,0) (14,2) (14,14)", "B")
    for i, c in enumerate(cells):
        play(m, f"({c[0]},{c[1]})")
        if m.outcome is not None:
            return m
        play(m, FAR_WHITE[i])
    return m


@pytest.mark.parametrize(
    "start, step",
    [((3, 5), (1, 0)), ((5, 3), (0, 1)), ((3, 3), (1, 1)), ((3, 11), (1, -1))],
    ids=["across", "down", "diagonal", "anti-diagonal"],
)
def test_five_in_a_row_wins_in_every_direction(swap2, start, step):
    cells = [(start[0] + k * step[0], start[1] + k * step[1]) for k in range(5)]
    m = black_builds(swap2, cells[:4])
    assert m.outcome is None
    play(m, f"({cells[4][0]},{cells[4][1]})")
    out = m.next()
    assert out == Outcome(winner=1, reason="five in a row")
    assert sorted(m.last_line) == sorted(cells)
    assert m.play(0, "(1,1)").verdict == "illegal-move"  # nothing more after the end


def test_four_is_not_a_win_and_the_order_of_the_five_does_not_matter(swap2):
    m = black_builds(swap2, [(5, 5), (9, 5), (6, 5), (8, 5)])
    assert m.outcome is None
    play(m, "(7,5)")  # the middle stone completes the line
    assert m.next() == Outcome(winner=1, reason="five in a row")


def test_overline_wins(swap2):
    m = black_builds(swap2, [(2, 9), (3, 9), (4, 9), (6, 9), (7, 9)])
    assert m.outcome is None
    play(m, "(5,9)")
    assert m.next() == Outcome(winner=1, reason="five in a row")
    assert len(m.last_line) == 6


def test_a_line_broken_by_the_other_colour_does_not_win(swap2):
    m = new(swap2)
    play(m, "(14,0) (14,2) (5,7)", "B")  # white already sits at (5,7)
    for b, w in zip(["(3,7)", "(4,7)", "(6,7)", "(7,7)"], FAR_WHITE):
        play(m, b, w)
    play(m, "(8,7)")
    assert m.outcome is None


def test_white_can_win_too(swap2):
    m = new(swap2)
    play(m, "(14,0) (14,2) (14,14)", "W (3,3)")  # seat 1 plays white, seat 0 black moves first
    for b, w in zip(["(0,14)", "(2,14)", "(4,14)", "(6,14)"], ["(4,3)", "(5,3)", "(6,3)", "(7,3)"]):
        play(m, b, w)
    assert m.next() == Outcome(winner=1, reason="five in a row")


def test_full_board_is_a_tie(swap2):
    # (x + 2y) mod 4 < 2 makes a board with no five in any direction (runs of 2 at most).
    def color(x, y):
        return BLACK if (x + 2 * y) % 4 < 2 else WHITE

    last = (14, 14)
    m = new(swap2)
    play(m, OPENING, "B")  # seat 1 plays black
    m.board = Board.of(Stone(x, y, color(x, y)) for y in range(15) for x in range(15) if (x, y) != last)
    # 3 opening stones and 221 game-phase stones are down; round 221 is white's (seat 0)
    assert color(*last) == WHITE and len(m.board.stones) == 224
    m.moves = 221
    step = m.next()
    assert step.seat == 0 and m.encode(step.payload).startswith("221 [")
    assert m.play(0, "(14,14)") is None
    assert m.next() == Outcome(winner=None, reason="board full")
    assert m.final(m.next()) == (Message(0, Exit(None)), Message(1, Exit(None)))
    assert [m.encode(x.payload) for x in m.final(m.next())] == ["EXIT TIE", "EXIT TIE"]


def test_exit_names_the_winner_to_both(swap2):
    m = black_builds(swap2, [(3, 5), (4, 5), (5, 5), (6, 5), (7, 5)])
    assert [m.encode(x.payload) for x in m.final(m.next())] == ["EXIT bert", "EXIT bert"]


def test_a_forfeit_ends_the_game_for_the_other_seat(swap2):
    m = new(swap2)
    play(m, OPENING)
    out = m.forfeit(1, "timeout", "no reply in 5 s")
    assert out.winner == 0 and "timeout" in out.reason
    assert m.next() == out
    assert [m.encode(x.payload) for x in m.final(out)] == ["EXIT anna", "EXIT anna"]


# -- rejections ---------------------------------------------------------------------
def at(swap2, phase):
    m = new(swap2)
    replies = {"A": [], "B": [OPENING], "C": [OPENING, "(9,9) (10,10)"], "N": [OPENING, "B"]}[phase]
    play(m, *replies)
    return m


@pytest.mark.parametrize(
    "phase, reply",
    [
        ("A", ""),
        ("A", "hello"),
        ("A", "(1,2)(3,4)"),
        ("A", "(1,2)(3,4)(5,6)(7,8)"),
        ("A", "(1,2) (3,4) (5,6"),
        ("A", "B"),
        ("B", "W"),
        ("B", "(1,1)"),
        ("B", "b"),
        ("B", "(1,1)(2,2)(3,3)"),
        ("C", "(1,1)"),
        ("C", "black"),
        ("N", "B"),
        ("N", "(1,1)(2,2)"),
        ("N", "(1.5,2)"),
        ("N", "\ufffd\ufffd(1,1)"),  # non-UTF-8 bytes, decoded with replacement by the core
    ],
)
def test_unreadable_replies_are_invalid(swap2, phase, reply):
    m = at(swap2, phase)
    r = m.play(m.next().seat, reply)
    assert isinstance(r, Rejected) and r.verdict == "invalid-reply"
    assert repr(reply)[1:-1][:20] in r.reason


@pytest.mark.parametrize("reply", [None, 7, ("B",), b"(1,1)", object()])
def test_non_text_replies_are_invalid_and_never_raise(swap2, reply):
    m = at(swap2, "N")
    r = m.play(m.next().seat, reply)
    assert r.verdict == "invalid-reply"


@pytest.mark.parametrize(
    "phase, reply, why",
    [
        ("A", "(1,1) (1,1) (2,2)", "twice"),
        ("A", "(1,1) (2,2) (1,1)", "twice"),
        ("A", "(15,0) (1,1) (2,2)", "off the board"),
        ("A", "(0,0) (1,-1) (2,2)", "off the board"),
        ("B", "W (7,7)", "taken by black"),
        ("B", "W (7,8)", "taken by white"),
        ("B", "(9,9) (9,9)", "twice"),
        ("B", "(9,9) (8,8)", "taken"),
        ("B", "(0,15) (9,9)", "off the board"),
        ("N", "(7,7)", "taken"),
        ("N", "(15,15)", "off the board"),
        ("N", "(" + "1" * 5000 + ",3)", "off the board"),
    ],
)
def test_illegal_moves(swap2, phase, reply, why):
    m = at(swap2, phase)
    r = m.play(m.next().seat, reply)
    assert isinstance(r, Rejected) and r.verdict == "illegal-move" and why in r.reason
    assert len(r.reason) < 200


def test_a_rejected_reply_changes_nothing(swap2):
    m = at(swap2, "N")
    before = (m.next(), list(m.board.stones))
    assert m.play(1, "(7,7)") is not None
    assert (m.next(), list(m.board.stones)) == before


def test_the_wrong_seat_is_refused(swap2):
    m = at(swap2, "N")
    assert m.play(0, "(1,1)").verdict == "illegal-move"


def test_long_garbage_is_quoted_short(swap2):
    m = at(swap2, "N")
    r = m.play(1, "z" * 100_000)
    assert r.verdict == "invalid-reply" and len(r.reason) < 200 and "zzz" in r.reason


def test_sorted_board_order_is_a_rule(swap2):
    m = new(swap2, {"board_order": "sorted"})
    play(m, "(14,14) (0,0) (0,1)")
    assert line(m) == (1, 'B [((0,0),"B"),((0,1),"W"),((14,14),"B")]')


def test_an_unknown_board_order_is_refused(swap2):
    with pytest.raises(ValueError, match="board_order"):
        new(swap2, {"board_order": "random"})


# -- conformance helpers --------------------------------------------------------------
@pytest.mark.parametrize("phase", ["A", "B", "C", "N"])
def test_every_listed_reply_is_accepted(swap2, phase):
    m = at(swap2, phase)
    replies = m.legal_replies()
    assert 0 < len(replies) <= 300
    assert replies == at(swap2, phase).legal_replies()  # seeded, so repeatable
    for r in replies[:60]:
        fresh = at(swap2, phase)
        assert fresh.play(fresh.next().seat, r) is None, r


def test_random_playouts_end_properly(swap2):
    import random

    for seed in range(20):
        rng = random.Random(seed)
        m = swap2.match(Setup(players=("a", "b"), seed=seed, rules=swap2.rules))
        steps = 0
        while isinstance(m.next(), Prompt):
            assert m.play(m.next().seat, rng.choice(m.legal_replies())) is None
            steps += 1
        out = m.next()
        assert out.reason in ("five in a row", "board full") and steps <= 3 + 225


def test_render_draws_the_board(swap2):
    def lower(m) -> int:
        return sum(c in "xo" for row in m.render().splitlines()[1:16] for c in row)

    m = at(swap2, "N")  # after "B": the latest reply placed no stone
    rows = m.render().splitlines()
    assert len(rows) == 18 and "bert" in rows[-2]
    assert rows[-1].startswith("x is the column (across), y the row (down)")  # the legend
    assert lower(m) == 0
    assert lower(at(swap2, "B")) == 3  # the opening's three stones, in lower case
    assert lower(at(swap2, "C")) == 2
    play(m, "(0,14)")
    rows = m.render().splitlines()
    assert rows[15].split()[:2] == ["14", "x"] and lower(m) == 1  # x is the column, y the row


def test_bot_args_are_the_opponent_and_the_seed(swap2):
    setup = Setup(players=("anna", "bert"), seed=1)
    assert swap2.bot_args(setup, 0, 123) == ["bert", "123"]
    assert swap2.bot_args(setup, 1, 9) == ["anna", "9"]


def test_game_info(swap2):
    assert swap2.name == "gomoku_swap2"
    assert (swap2.scoring.win, swap2.scoring.draw, swap2.scoring.loss) == (2, 1, 0)
    assert swap2.scoring.tiebreak == ("submitted", "name")
    assert swap2.limits.grace == 0.5
    assert sorted(p.name for p in swap2.bots.iterdir() if p.is_dir()) >= ["greedy", "scout", "threat"]


def test_a_move_written_otherwise_is_judged_as_the_canonical_one(swap2):
    # "(x,y)" as written by most bots is looked up; spaces, leading zeros, a taken or an
    # off-board cell go through the parser, with the same result for the same cell.
    m = new(swap2)
    play(m, OPENING, "B")
    assert m.play(1, " ( 9 , 9 ) ") is None and m.board.at(9, 9) == BLACK
    assert m.play(0, "(06,6)") is None and m.board.at(6, 6) == WHITE
    taken = m.play(1, "(9,9)")
    assert taken == Rejected("illegal-move", "(9,9) is already taken by black")
    assert m.play(1, "(15,0)") == Rejected("illegal-move", "(15,0) is off the board (x and y are 0..14)")
    assert m.play(1, "(1,1)") is None
    assert line(m) == (0, '3 [((7,7),"B"),((8,8),"B"),((7,8),"W"),((9,9),"B"),((6,6),"W"),((1,1),"B")]')


def test_the_board_line_follows_a_board_put_in_place_of_the_match_s(swap2):
    m = new(swap2)
    play(m, OPENING, "B", "(9,9)")
    assert line(m)[1] == '1 [((7,7),"B"),((8,8),"B"),((7,8),"W"),((9,9),"B")]'
    m.board = Board.of([Stone(1, 2, BLACK)])
    assert line(m)[1] == '1 [((1,2),"B")]'
    m.board.place(3, 4, WHITE)
    assert line(m)[1] == '1 [((1,2),"B"),((3,4),"W")]'
