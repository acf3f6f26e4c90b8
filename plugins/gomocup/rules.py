"""The board of Gomocup's Gomoku: stones, five in a row under Piskvork's rules 0, 1 and 4, and
black's fouls in renju.

Pure data and functions: no I/O, no randomness.  Coordinates are Piskvork's: ``x`` across, ``y``
down, both from 0.  Black is colour 1 and moves first; white is colour 2.

The rules are Piskvork's ``INFO rule`` values:

* 0, freestyle: five or more in a row wins;
* 1, exactly five: only five wins (six or more is an ordinary move, for both colours);
* 4, renju: white wins with five or more; black wins with exactly five, and loses on a foul: an
  overline (six or more), a double four or a double three.  A move that makes exactly five is no
  foul, whatever else it makes.
"""

from __future__ import annotations

import attrs

EMPTY, BLACK, WHITE = 0, 1, 2
FREESTYLE, EXACT, RENJU = 0, 1, 4
#: The four line directions; each is walked both ways from a stone.
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))
#: How deep a three's completion is checked for fouls of its own (renju's "real" three).
FOUL_DEPTH = 2


def opponent(colour: int) -> int:
    return WHITE if colour == BLACK else BLACK


@attrs.define
class Board:
    """Stones on a ``size`` x ``size`` board, in the order placed."""

    size: int
    cells: dict[tuple[int, int], int] = attrs.field(factory=dict)
    stones: list[tuple[int, int, int]] = attrs.field(factory=list)

    def on_board(self, x: int, y: int) -> bool:
        return 0 <= x < self.size and 0 <= y < self.size

    def at(self, x: int, y: int) -> int:
        return self.cells.get((x, y), EMPTY)

    def put(self, x: int, y: int, colour: int) -> None:
        self.cells[(x, y)] = colour
        self.stones.append((x, y, colour))

    def full(self) -> bool:
        return len(self.cells) == self.size * self.size

    def empty_cells(self) -> list[tuple[int, int]]:
        return [(x, y) for y in range(self.size) for x in range(self.size) if (x, y) not in self.cells]

    def run(self, x: int, y: int, dx: int, dy: int, colour: int) -> int:
        """Stones of ``colour`` in an unbroken line through (x, y) along (dx, dy), counting
        (x, y) itself as one of them."""
        n = 1
        for sign in (1, -1):
            cx, cy = x + sign * dx, y + sign * dy
            while self.on_board(cx, cy) and self.cells.get((cx, cy)) == colour:
                n += 1
                cx, cy = cx + sign * dx, cy + sign * dy
        return n

    def line_through(self, x: int, y: int, colour: int) -> list[tuple[int, int]]:
        """The longest run of ``colour`` through (x, y) (for pictures: the five that won)."""
        best: list[tuple[int, int]] = []
        for dx, dy in DIRECTIONS:
            cells = [(x, y)]
            for sign in (1, -1):
                cx, cy = x + sign * dx, y + sign * dy
                while self.on_board(cx, cy) and self.cells.get((cx, cy)) == colour:
                    cells.append((cx, cy))
                    cx, cy = cx + sign * dx, cy + sign * dy
            if len(cells) > len(best):
                best = sorted(cells)
        return best


def wins(board: Board, x: int, y: int, colour: int, rule: int) -> bool:
    """Whether the stone of ``colour`` just placed at (x, y) makes a winning five under ``rule``."""
    exact = rule == EXACT or (rule == RENJU and colour == BLACK)
    for dx, dy in DIRECTIONS:
        n = board.run(x, y, dx, dy, colour)
        if n == 5 or (n > 5 and not exact):
            return True
    return False


# -- renju: black's fouls -------------------------------------------------------------------------


def _exact_five_if(board: Board, x: int, y: int, dx: int, dy: int) -> bool:
    """Whether a black stone at the empty (x, y) would make exactly five along (dx, dy)."""
    return board.on_board(x, y) and (x, y) not in board.cells and board.run(x, y, dx, dy, BLACK) == 5


def _five_points(board: Board, x: int, y: int, dx: int, dy: int) -> list[int]:
    """Offsets k (along (dx, dy) from the black stone at (x, y)) of the empty cells where black
    would make exactly five in this line with that stone in it."""
    found = []
    for k in range(-5, 6):
        if k == 0:
            continue
        cx, cy = x + k * dx, y + k * dy
        if not _exact_five_if(board, cx, cy, dx, dy):
            continue
        # The five made there must hold (x, y): every cell between is black.
        step = 1 if k > 0 else -1
        if all(board.cells.get((x + j * dx, y + j * dy)) == BLACK for j in range(step, k, step)):
            found.append(k)
    return found


def _fours_in_line(board: Board, x: int, y: int, dx: int, dy: int) -> int:
    """Fours black's stone at (x, y) is part of along (dx, dy): 0, 1, or 2 (two fours in one line,
    as ``X.XXX.X``).  A straight four (``.XXXX.``: two five points five apart) is one four."""
    points = _five_points(board, x, y, dx, dy)
    if len(points) < 2:
        return len(points)
    if len(points) == 2 and abs(points[0] - points[1]) == 5:
        return 1
    return len(points)


def _straight_four(board: Board, x: int, y: int, dx: int, dy: int) -> bool:
    """Whether black's stone at (x, y) is part of a straight four along (dx, dy)."""
    points = _five_points(board, x, y, dx, dy)
    return len(points) == 2 and abs(points[0] - points[1]) == 5


def _threes_in_line(board: Board, x: int, y: int, dx: int, dy: int, depth: int) -> bool:
    """Whether black's stone at (x, y) makes a real three along (dx, dy): one more black stone, not
    itself a foul, makes a straight four with it."""
    for k in range(-4, 5):
        cx, cy = x + k * dx, y + k * dy
        if k == 0 or not board.on_board(cx, cy) or (cx, cy) in board.cells:
            continue
        board.cells[(cx, cy)] = BLACK
        try:
            if _straight_four(board, x, y, dx, dy) and (depth <= 0 or foul(board, cx, cy, depth - 1) is None):
                return True
        finally:
            del board.cells[(cx, cy)]
    return False


def foul(board: Board, x: int, y: int, depth: int = FOUL_DEPTH) -> str | None:
    """Why black's stone at (x, y) (on the board already) is a foul in renju, or None.

    Exactly five is never a foul; then an overline, then two or more fours, then two or more
    real threes."""
    runs = [board.run(x, y, dx, dy, BLACK) for dx, dy in DIRECTIONS]
    if 5 in runs:
        return None
    if any(n > 5 for n in runs):
        return "an overline (six or more in a row)"
    fours = sum(_fours_in_line(board, x, y, dx, dy) for dx, dy in DIRECTIONS)
    if fours >= 2:
        return "a double four"
    threes = sum(1 for dx, dy in DIRECTIONS if _fours_in_line(board, x, y, dx, dy) == 0
                 and _threes_in_line(board, x, y, dx, dy, depth))
    if threes >= 2:
        return "a double three"
    return None
