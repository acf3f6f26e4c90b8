"""The board rules of gomoku_classic12: openings, fives in every direction, overlines, the full board."""

import random

import pytest

from kothkit_gomoku_classic12.rules import (
    BLACK,
    DIRECTIONS,
    EMPTY,
    OPENINGS,
    SIZE,
    WHITE,
    Board,
    on_board,
    opponent,
)


def test_center4_opening_is_the_course_position():
    b = Board.opening("center4")
    assert (b.at(5, 5), b.at(6, 6), b.at(5, 6), b.at(6, 5)) == (BLACK, BLACK, WHITE, WHITE)
    assert b.stones == 4
    assert len(b.empty_cells()) == SIZE * SIZE - 4


def test_empty_opening_has_no_stones():
    b = Board.opening("empty")
    assert b.stones == 0 and all(v == EMPTY for v in b.cells)
    assert set(OPENINGS) == {"center4", "empty"}


@pytest.mark.parametrize("dr,dc", [(0, 1), (1, 0), (1, 1), (1, -1)])
def test_five_in_each_direction_wins_from_any_stone_of_it(dr, dc):
    b = Board()
    start = (2, 7)
    cells = [(start[0] + i * dr, start[1] + i * dc) for i in range(5)]
    for r, c in cells[:4]:
        b.put(r, c, WHITE)
        assert not b.makes_five(r, c)
    b.put(*cells[4], WHITE)
    assert all(b.makes_five(r, c) for r, c in cells)


def test_overline_wins_and_a_gap_does_not():
    b = Board()
    for c in (0, 1, 2, 4, 5, 6):
        b.put(3, c, BLACK)
    assert not any(b.makes_five(3, c) for c in (0, 1, 2, 4, 5, 6))
    b.put(3, 3, BLACK)  # fills the gap: seven in a row
    assert b.run_length(3, 3, 0, 1) == 7
    assert b.makes_five(3, 3) and b.makes_five(3, 0)


def test_a_line_of_mixed_colours_is_not_five():
    b = Board()
    for c, colour in zip(range(6), (BLACK, BLACK, WHITE, BLACK, BLACK, BLACK)):
        b.put(0, c, colour)
    assert not any(b.makes_five(0, c) for c in range(6))


def test_lines_stop_at_the_edges():
    b = Board()
    for i in range(4):
        b.put(i, SIZE - 1 - i, BLACK)  # anti-diagonal into the corner
    assert not b.makes_five(0, SIZE - 1)
    b.put(4, SIZE - 5, BLACK)
    assert b.makes_five(0, SIZE - 1)


def test_full_board_and_helpers():
    b = Board()
    for r in range(SIZE):
        for c in range(SIZE):
            assert not b.full()
            b.put(r, c, BLACK)
    assert b.full() and b.empty_cells() == []
    assert on_board(0, 0) and on_board(11, 11) and not on_board(12, 0) and not on_board(0, -1)
    assert opponent(BLACK) == WHITE and opponent(WHITE) == BLACK


def test_makes_five_agrees_with_the_run_lengths_on_random_boards():
    # makes_five walks the cells itself (once a move); run_length is the plain reference.
    rng = random.Random(3)
    for _ in range(100):
        b = Board()
        for i in rng.sample(range(SIZE * SIZE), rng.randrange(10, 140)):
            row, col = divmod(i, SIZE)
            b.put(row, col, rng.choice((BLACK, BLACK, WHITE)))
            assert b.makes_five(row, col) == any(b.run_length(row, col, dr, dc) >= 5 for dr, dc in DIRECTIONS)
