"""The course protocol's lines: commands sent to brains and the replies parsed from them.

Commands (one line each): ``START 1|2``, ``PLACE X Y``, ``TURN``, ``END 0|1|2``.
Replies: ``OK`` to START, ``X Y`` (row, column) to TURN.  Parsing is lenient
about surrounding whitespace and strict about everything else, and never raises.
"""

from __future__ import annotations

import re
from typing import Any

#: END codes, as the brain receiving the line sees them.
END_DRAW, END_WON, END_LOST = 0, 1, 2

_MOVE = re.compile(r"\s*([+-]?[0-9]+)\s+([+-]?[0-9]+)\s*")
#: Longer numbers are certainly off the board; cutting them avoids int() on a 64 KB digit string.
_MAX_DIGITS = 6
OFF_BOARD = 10**_MAX_DIGITS


def start(colour: int) -> str:
    return f"START {colour}"


def place(row: int, col: int) -> str:
    return f"PLACE {row} {col}"


def turn() -> str:
    return "TURN"


def end(code: int) -> str:
    return f"END {code}"


def move(row: int, col: int) -> str:
    """A brain's answer to TURN."""
    return f"{row} {col}"


def is_ok(reply: Any) -> bool:
    """Whether ``reply`` is the ``OK`` a brain owes after START (any letter case)."""
    return type(reply) is str and reply.strip().upper() == "OK"


def _number(text: str) -> int:
    digits = text.lstrip("+-").lstrip("0") or "0"
    if len(digits) > _MAX_DIGITS:
        return -OFF_BOARD if text.startswith("-") else OFF_BOARD
    return int(text)


def parse_move(reply: Any) -> tuple[int, int] | None:
    """(row, col) from an ``X Y`` reply, or None if it is not two integers.

    The numbers are not checked against the board: an off-board cell is a
    well-formed but illegal move, which the match judges.
    """
    if type(reply) is not str:
        return None
    m = _MOVE.fullmatch(reply)
    if m is None:
        return None
    return _number(m.group(1)), _number(m.group(2))
