"""Blindfold Connect-4 for people: the replay picture shows the true board and, side by side, what
each player saw (its view, the taped rows hatched: there it sees only its own stones); and what a person
playing it sees (its own view, as a bot would) and types (``kothkit play``)."""

from __future__ import annotations

from kothkit.people import CELLS, Grid, Mistake, Turn

from kothkit_connect4_hidden.match import Connect4Match
from kothkit_connect4_hidden.rules import COLS, HIDDEN_ROWS, ROWS, render

COLOURS = {"X": "#d62828", "O": "#f2b705"}
_MARK = {0: ".", 1: "X", 2: "O"}


def _rows(board) -> tuple[str, ...]:
    """Rows top first (the game keeps them bottom-up)."""
    return tuple("".join(_MARK.get(v, ".") for v in board[r]) for r in range(ROWS - 1, -1, -1))


def four_through(board, last: tuple[int, int] | None) -> tuple[tuple[int, int], ...]:
    """(row, col) bottom-up of four or more in a row through the last stone, if it made them."""
    if last is None:
        return ()
    row, col = last
    who = board[row][col]
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        run = [(row, col)]
        for sign in (1, -1):
            r, c = row + sign * dr, col + sign * dc
            while 0 <= r < ROWS and 0 <= c < COLS and board[r][c] == who:
                run.append((r, c))
                r, c = r + sign * dr, c + sign * dc
        if len(run) >= 4:
            return tuple(sorted(run))
    return ()


def picture(match: Connect4Match) -> list[Grid]:
    board = match.board
    last = match.last
    top = lambda cells: tuple((ROWS - 1 - r, c) for r, c in cells)  # noqa: E731
    won = match.outcome is not None and match.outcome.winner is not None and match.outcome.reason == "four in a row"
    names = match.setup.players
    shaded = tuple(ROWS - 1 - r for r in HIDDEN_ROWS)
    panels = [Grid(rows=_rows(board), pieces=COLOURS, style=CELLS, title="the true board",
                   last=top([last]) if last else (), line=top(four_through(board, last)) if won else (),
                   col_labels=tuple(str(c) for c in range(COLS)))]
    for seat in (0, 1):
        view = match.views[seat]
        own = last is not None and board[last[0]][last[1]] == seat + 1
        seen = last is not None and (own or last[0] not in HIDDEN_ROWS)
        panels.append(Grid(rows=_rows(view), pieces=COLOURS, style=CELLS,
                           title=f"what {names[seat]} ({_MARK[seat + 1]}) saw", last=top([last]) if seen else (),
                           shaded_rows=shaded, col_labels=tuple(str(c) for c in range(COLS))))
    return panels


# -- play by a person (kothkit play) ------------------------------------------------------------


def human(prompt):
    """A person's turn, built from the prompt alone (its view and turn): the person sees what a
    bot would, the opponent's stones in the taped rows (marked #) not at all."""
    view, turn = prompt.payload
    mark = _MARK[prompt.seat + 1]

    def parse(text: str) -> int:
        digits = text.strip().lstrip("+-")
        if not (digits.isdigit() and digits.isascii() and len(digits) <= 6):
            raise Mistake(f"cannot read {text!r}: a move is a column number, 0 to {COLS - 1}")
        return int(text)  # the game judges the number: off the board is its ruling

    board = (f"{render(view)}\nturn {turn}, you are {mark}; # a taped row: there you see only your own "
             "stones")
    grid = Grid(rows=_rows(view), pieces=COLOURS, style=CELLS, title=f"your view ({mark}), turn {turn}",
                shaded_rows=tuple(ROWS - 1 - r for r in HIDDEN_ROWS), col_labels=tuple(str(c) for c in range(COLS)))
    return Turn(board=board, asks=f"your move ({mark}): a column 0-{COLS - 1}", parse=parse,
                choices=f"type a column from 0 to {COLS - 1} (a full column is a pass)", picture=grid,
                cell=lambda row, col: str(col))
