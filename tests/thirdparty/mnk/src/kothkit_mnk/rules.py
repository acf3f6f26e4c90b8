"""The board and the win rule, as pure functions of plain data.

A board is a tuple of rows, each a string of ``.``, ``X`` and ``O``; row 0 is
the top.  ``m`` rows, ``n`` columns, ``k`` in a row wins.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

EMPTY, X, O = ".", "X", "O"
DEFAULT_RULES = {"m": 3, "n": 3, "k": 3, "opening": 0}
#: Boards wider or taller than this would make lines longer than bots expect.
MAX_SIDE = 26

Board = tuple[str, ...]


def check_rules(rules: Mapping[str, Any]) -> dict[str, int]:
    """The rules with defaults filled in; ValueError naming the bad setting otherwise."""
    unknown = sorted(set(rules) - set(DEFAULT_RULES))
    if unknown:
        raise ValueError(f"mnk: unknown rules setting {unknown[0]!r} (known: {', '.join(DEFAULT_RULES)})")
    merged = {**DEFAULT_RULES, **rules}
    for key in ("m", "n", "k"):
        value = merged[key]
        if type(value) is not int or not 1 <= value <= MAX_SIDE:
            raise ValueError(f"mnk: {key} must be an integer from 1 to {MAX_SIDE}, got {value!r}")
    if merged["k"] > max(merged["m"], merged["n"]):
        raise ValueError(f"mnk: k={merged['k']} does not fit on a {merged['m']}x{merged['n']} board")
    opening = merged["opening"]
    if type(opening) is not int or not 0 <= opening < merged["m"] * merged["n"]:
        raise ValueError(f"mnk: opening must be an integer from 0 to {merged['m'] * merged['n'] - 1}, got {opening!r}")
    return merged


def empty_board(m: int, n: int) -> Board:
    return tuple(EMPTY * n for _ in range(m))


def place(board: Board, row: int, col: int, mark: str) -> Board:
    line = board[row]
    return board[:row] + (line[:col] + mark + line[col + 1:],) + board[row + 1:]


def empty_cells(board: Board) -> list[tuple[int, int]]:
    return [(r, c) for r, line in enumerate(board) for c, cell in enumerate(line) if cell == EMPTY]


def makes_line(board: Board, row: int, col: int, k: int) -> bool:
    """Whether the mark at (row, col) is part of k or more in a row."""
    mark = board[row][col]
    m, n = len(board), len(board[0])
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        count = 1
        for sign in (1, -1):
            r, c = row + sign * dr, col + sign * dc
            while 0 <= r < m and 0 <= c < n and board[r][c] == mark:
                count += 1
                r, c = r + sign * dr, c + sign * dc
        if count >= k:
            return True
    return False
