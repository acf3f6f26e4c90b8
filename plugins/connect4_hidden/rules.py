"""The blindfold Connect-4 board: geometry, fast win detection, views and rendering.

The board is a list of 6 rows from the bottom up, 7 cells each: 1 = first
player (seat 0), 2 = second player (seat 1), 0 = empty.  Rows 0, 2 and 4 are
under the black tape: a player sees the opponent's stones there as 0.

Win detection uses one integer bitboard per player (column-major, 7 bits per
column: 6 rows and an always-empty guard bit, so shifted lines never wrap from
one column into the next).  The plain list-of-rows functions here
(:func:`winner_of`, :func:`view_of`) are the slow, obvious versions, kept for
tests, rendering and ``hidden_from``.
"""

from __future__ import annotations

from collections.abc import Sequence

ROWS = 6
COLS = 7
CELLS = ROWS * COLS
#: A game that lasts this many turns without a winner is a draw (passes count as turns).
MAX_TURNS = ROWS * COLS
#: Rows (from the bottom, 0-based) where the opponent's stones are hidden.
HIDDEN_ROWS = (0, 2, 4)
#: Bits per column in a bitboard: the rows plus one guard bit.
STRIDE = ROWS + 1

Board = list[list[int]]


def empty_board() -> Board:
    return [[0] * COLS for _ in range(ROWS)]


def bit(row: int, col: int) -> int:
    """The bitboard bit of cell (row, col)."""
    return 1 << (col * STRIDE + row)


def has_four(b: int) -> bool:
    """Whether bitboard ``b`` holds four in a row in any direction."""
    # Vertical (shift 1), horizontal (7), and the two diagonals (6 and 8): two
    # shifted ANDs leave a bit only where four consecutive cells are set.
    m = b & (b >> 1)
    if m & (m >> 2):
        return True
    m = b & (b >> 7)
    if m & (m >> 14):
        return True
    m = b & (b >> 6)
    if m & (m >> 12):
        return True
    m = b & (b >> 8)
    return bool(m & (m >> 16))


def bits_of(board: Sequence[Sequence[int]], player: int) -> int:
    """The bitboard of ``player``'s stones on a list-of-rows board."""
    b = 0
    for r, row in enumerate(board):
        for c, x in enumerate(row):
            if x == player:
                b |= bit(r, c)
    return b


_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


def winner_of(board: Sequence[Sequence[int]]) -> int:
    """The player (1 or 2) with four in a row on ``board``, else 0; a plain scan (slow, obvious)."""
    for r in range(ROWS):
        for c in range(COLS):
            p = board[r][c]
            if not p:
                continue
            for dr, dc in _DIRECTIONS:
                rr, cc = r + 3 * dr, c + 3 * dc
                if 0 <= rr < ROWS and 0 <= cc < COLS and all(board[r + k * dr][c + k * dc] == p for k in range(4)):
                    return p
    return 0


def view_of(board: Sequence[Sequence[int]], player: int) -> Board:
    """What ``player`` (1 or 2) sees: a copy with the opponent's stones in hidden rows as 0."""
    other = 3 - player
    return [[0 if (r in HIDDEN_ROWS and x == other) else x for x in row] for r, row in enumerate(board)]


def hidden_cells(board: Sequence[Sequence[int]], player: int) -> set[tuple[int, int]]:
    """The (row, col) cells holding opponent stones that ``player``'s view must show as 0."""
    other = 3 - player
    return {(r, c) for r in HIDDEN_ROWS for c in range(COLS) if board[r][c] == other}


def render(board: Sequence[Sequence[int]], hidden_for: int | None = None, last: tuple[int, int] | None = None) -> str:
    """The board as text, top row first: X = player 1, O = player 2, . = empty.

    ``hidden_for`` (1 or 2) marks the cells that player cannot see with ``?``
    when they hold an opponent stone; ``last`` (row, col) is shown in brackets.
    Hidden rows are flagged with ``#`` at the right.
    """
    marks = {0: ".", 1: "X", 2: "O"}
    lines = []
    for r in range(ROWS - 1, -1, -1):
        cells = []
        for c in range(COLS):
            x = board[r][c]
            s = marks.get(x, "?")
            if hidden_for is not None and r in HIDDEN_ROWS and x == 3 - hidden_for:
                s = "?"
            cells.append(f"[{s}]" if last == (r, c) else f" {s} ")
        lines.append(f"{r} |{''.join(cells)}|" + (" #" if r in HIDDEN_ROWS else ""))
    lines.append(("   " + "".join(f" {c} " for c in range(COLS))).rstrip())
    return "\n".join(lines)
