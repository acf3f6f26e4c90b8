"""The 12x12 board of the course's Gomoku: openings, stones, five-in-a-row and the full board.

Pure data and functions: no I/O, no randomness.  Coordinates are (row, col)
from 0, as in the course's protocol.  Black is colour 1, white colour 2 (the
numbers the protocol's ``START`` uses).
"""

from __future__ import annotations

import attrs

SIZE = 12
EMPTY, BLACK, WHITE = 0, 1, 2

#: Starting stones per ``opening`` rule value, as (row, col, colour).
#: "center4" is the course's own sample position: the protocol cannot tell a
#: brain about stones already on the board, so brains are expected to know it.
OPENINGS: dict[str, tuple[tuple[int, int, int], ...]] = {
    "center4": ((5, 5, BLACK), (6, 6, BLACK), (5, 6, WHITE), (6, 5, WHITE)),
    "empty": (),
}

#: The four line directions; each is walked both ways from a stone.
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))


def opponent(colour: int) -> int:
    return WHITE if colour == BLACK else BLACK


def on_board(row: int, col: int) -> bool:
    return 0 <= row < SIZE and 0 <= col < SIZE


@attrs.define
class Board:
    """Stones on the board, row-major; a cell holds EMPTY, BLACK or WHITE."""

    cells: list[int] = attrs.field(factory=lambda: [EMPTY] * (SIZE * SIZE))
    stones: int = 0

    @classmethod
    def opening(cls, name: str) -> Board:
        board = cls()
        for row, col, colour in OPENINGS[name]:
            board.put(row, col, colour)
        return board

    def at(self, row: int, col: int) -> int:
        return self.cells[row * SIZE + col]

    def put(self, row: int, col: int, colour: int) -> None:
        self.cells[row * SIZE + col] = colour
        self.stones += 1

    def full(self) -> bool:
        return self.stones == SIZE * SIZE

    def empty_cells(self) -> list[tuple[int, int]]:
        return [(i // SIZE, i % SIZE) for i, v in enumerate(self.cells) if v == EMPTY]

    def run_length(self, row: int, col: int, dr: int, dc: int) -> int:
        """Stones of the colour at (row, col) in an unbroken line through it along (dr, dc)."""
        colour = self.at(row, col)
        n = 1
        for sign in (1, -1):
            r, c = row + sign * dr, col + sign * dc
            while on_board(r, c) and self.at(r, c) == colour:
                n += 1
                r, c = r + sign * dr, c + sign * dc
        return n

    def makes_five(self, row: int, col: int) -> bool:
        """Whether the stone at (row, col) is part of five or more in a row (overlines win too)."""
        # run_length in each direction, inlined on the cells: this runs once a move.
        cells = self.cells
        colour = cells[row * SIZE + col]
        for dr, dc in DIRECTIONS:
            n = 1
            r, c = row + dr, col + dc
            while 0 <= r < SIZE and 0 <= c < SIZE and cells[r * SIZE + c] == colour:
                n += 1
                r, c = r + dr, c + dc
            r, c = row - dr, col - dc
            while 0 <= r < SIZE and 0 <= c < SIZE and cells[r * SIZE + c] == colour:
                n += 1
                r, c = r - dr, c - dc
            if n >= 5:
                return True
        return False
