"""The Swap2 board: stones in placement order, cell lookups and five-in-a-row detection.

Pure data and functions; the match (match.py) decides whose turn it is and
what is asked, this module only knows the 15x15 grid.
"""

from __future__ import annotations

from typing import NamedTuple

import attrs

SIZE = 15
BLACK = "B"
WHITE = "W"
#: The four line directions; each is checked both ways from the new stone.
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))
#: Five or more in a row wins (an overline counts, unlike Renju).
WIN_LENGTH = 5
#: The board again as a flat list with a border of empty cells, for the five-in-a-row check each
#: move: cell (x, y) is at ``(y + 1) * STRIDE + x``; column SIZE and the rows above and below the
#: board are never set, so a run stops there without a bounds check (x = -1 is the previous row's
#: column SIZE).
STRIDE = SIZE + 1
GRID = (SIZE + 2) * STRIDE
#: DIRECTIONS as steps in the grid.
STEPS = tuple(dy * STRIDE + dx for dx, dy in DIRECTIONS)


class Stone(NamedTuple):
    """A stone on the board (a tuple: hashing and comparing it is as cheap as can be)."""

    x: int
    y: int
    color: str


_new = tuple.__new__


def on_board(x: int, y: int) -> bool:
    return 0 <= x < SIZE and 0 <= y < SIZE


def other(color: str) -> str:
    return WHITE if color == BLACK else BLACK


@attrs.define
class Board:
    """Stones in the order they were placed, plus a cell index for O(1) lookups."""

    stones: list[Stone] = attrs.field(factory=list)
    cells: dict[tuple[int, int], str] = attrs.field(factory=dict)
    #: The colours again, by grid index (see STRIDE).
    grid: list[str | None] = attrs.field(factory=lambda: [None] * GRID, repr=False)

    @classmethod
    def of(cls, stones) -> Board:
        b = cls()
        for s in stones:
            b.place(s.x, s.y, s.color)
        return b

    def place(self, x: int, y: int, color: str) -> None:
        self.stones.append(_new(Stone, (x, y, color)))  # Stone(x, y, color), without its __new__'s call
        self.cells[(x, y)] = color
        if 0 <= x < SIZE and 0 <= y < SIZE:
            self.grid[(y + 1) * STRIDE + x] = color

    def at(self, x: int, y: int) -> str | None:
        return self.cells.get((x, y))

    def full(self) -> bool:
        return len(self.cells) >= SIZE * SIZE

    def empty_cells(self) -> list[tuple[int, int]]:
        return [(x, y) for y in range(SIZE) for x in range(SIZE) if (x, y) not in self.cells]


def line_through(board: Board, x: int, y: int, dx: int, dy: int) -> list[tuple[int, int]]:
    """The maximal run of the colour at (x, y) along (dx, dy), both ways, in order."""
    cells = board.cells  # plain dict lookups: this runs four times for every stone placed
    color = cells.get((x, y))
    if color is None:
        return []
    back = []
    cx, cy = x - dx, y - dy
    while 0 <= cx < SIZE and 0 <= cy < SIZE and cells.get((cx, cy)) == color:
        back.append((cx, cy))
        cx, cy = cx - dx, cy - dy
    fwd = []
    cx, cy = x + dx, y + dy
    while 0 <= cx < SIZE and 0 <= cy < SIZE and cells.get((cx, cy)) == color:
        fwd.append((cx, cy))
        cx, cy = cx + dx, cy + dy
    return back[::-1] + [(x, y)] + fwd


def winning_line(board: Board, x: int, y: int) -> list[tuple[int, int]] | None:
    """The run of five or more through the stone at (x, y), if its placement made one."""
    # Counted on the grid first (this runs once a stone): the run itself only for a win.
    grid = board.grid
    at = (y + 1) * STRIDE + x
    if not (0 <= x < SIZE and 0 <= y < SIZE) or grid[at] is None:
        return None
    color = grid[at]
    for step in STEPS:
        n = 1
        i = at + step
        while grid[i] == color:
            n += 1
            i += step
        i = at - step
        while grid[i] == color:
            n += 1
            i -= step
        if n >= WIN_LENGTH:
            break
    else:
        return None
    for dx, dy in DIRECTIONS:
        run = line_through(board, x, y, dx, dy)
        if len(run) >= WIN_LENGTH:
            return run
    return None
