"""The board's quick five-in-a-row check (a flat grid with a border) against the plain walk on the
cells, on random boards and along the edges, where a run must not wrap to the next row."""

import random

from kothkit_gomoku_swap2.rules import BLACK, DIRECTIONS, SIZE, WHITE, WIN_LENGTH, Board, line_through, winning_line


def walked(board: Board, x: int, y: int):
    """The reference: the first direction's run of five or more, walked on the cells."""
    for dx, dy in DIRECTIONS:
        run = line_through(board, x, y, dx, dy)
        if len(run) >= WIN_LENGTH:
            return run
    return None


def test_random_boards_agree_with_the_walk():
    rng = random.Random(7)
    cells = [(x, y) for x in range(SIZE) for y in range(SIZE)]
    for _ in range(60):
        board = Board()
        for x, y in rng.sample(cells, rng.randrange(20, 200)):
            board.place(x, y, rng.choice((BLACK, BLACK, WHITE)))
            assert winning_line(board, x, y) == walked(board, x, y)


def test_runs_stop_at_the_edges():
    # Four along the right edge of one row and one at the left of the next: no five.
    board = Board()
    for x in range(11, 15):
        board.place(x, 0, BLACK)
    board.place(0, 1, BLACK)
    assert winning_line(board, 0, 1) is None and winning_line(board, 14, 0) is None
    # Diagonals that would wrap around the left and right edges.
    board = Board()
    for x, y in [(13, 3), (14, 4), (0, 6), (1, 7), (2, 8)]:
        board.place(x, y, WHITE)
    assert all(winning_line(board, x, y) is None for x, y in [(14, 4), (0, 6)])
    board = Board()
    for x, y in [(1, 10), (0, 11), (14, 11), (13, 12), (12, 13)]:
        board.place(x, y, WHITE)
    assert all(winning_line(board, x, y) is None for x, y in [(0, 11), (14, 11)])
    # A real five in the corner, both diagonals, and at the top and bottom rows.
    for five in ([(i, i) for i in range(5)], [(14 - i, i) for i in range(5)], [(i, 0) for i in range(10, 15)],
                 [(0, i) for i in range(10, 15)]):
        board = Board()
        for x, y in five:
            board.place(x, y, BLACK)
        line = winning_line(board, *five[-1])
        assert line == walked(board, *five[-1]) and set(line or ()) == set(five)
