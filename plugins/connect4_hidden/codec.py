"""Replies and prompts: parse a column from any reply, write the JSON prompt line for program bots.

A reply is judged the same way whoever sent it: a function bot's returned
value (an ``int``, or anything else it returned) or a program bot's line (a
``str``).  Nothing here raises, whatever it is given.
"""

from __future__ import annotations

import json
import operator
import re
from typing import Any

from kothkit.game import Rejected, Verdict

from kothkit_connect4_hidden.rules import COLS

# ASCII digits only: int() would also take other scripts' digits and "1_000".
_INT = re.compile(r"[+-]?[0-9]+")
# Longer numbers are off the board anyway; int() refuses more than 4300 digits.
_MAX_DIGITS = 12


def _short(x: Any, n: int = 60) -> str:
    try:
        s = repr(x)
    except Exception:  # a bot's object whose __repr__ fails
        s = f"<{type(x).__name__} object>"
    return s if len(s) <= n else s[: n - 3] + "..."


def _off_board(col: int) -> Rejected:
    return Rejected(Verdict.ILLEGAL_MOVE, f"column {col} is off the board (columns are 0-{COLS - 1})")


def parse_column(reply: Any) -> int | Rejected:
    """The column a reply names (0-6), or why it is refused.

    Not an integer (a float, a bool, None, text that is not a number):
    ``invalid-reply``.  An integer outside 0-6: ``illegal-move`` (off the board).
    A ``str`` is a program bot's line: surrounding whitespace is ignored.
    Integer-like objects (e.g. numpy integers) count as integers; ``True`` and
    ``False`` do not, although Python would index a list with them.
    """
    t = type(reply)
    if t is int:
        col = reply
    elif t is str or isinstance(reply, str):
        s = str.strip(reply)
        if not _INT.fullmatch(s):
            return Rejected(Verdict.INVALID_REPLY, f"expected a column number 0-{COLS - 1}, got {_short(reply)}")
        digits = s.lstrip("+-")
        if len(digits.lstrip("0")) > _MAX_DIGITS:
            return Rejected(Verdict.ILLEGAL_MOVE, f"column {_short(s, 30)} is off the board (columns are 0-{COLS - 1})")
        col = int(s)
    elif isinstance(reply, bool):
        return Rejected(Verdict.INVALID_REPLY, f"a column must be an integer 0-{COLS - 1}, got the bool {reply}")
    else:
        try:
            col = operator.index(reply)
        except Exception:
            return Rejected(Verdict.INVALID_REPLY, f"a column must be an integer 0-{COLS - 1}, got {_short(reply)}")
        if type(col) is not int:  # int subclass with odd behaviour
            try:
                col = int.__index__(col)
            except Exception:
                return Rejected(Verdict.INVALID_REPLY, f"a column must be an integer 0-{COLS - 1}, got {_short(reply)}")
    if 0 <= col < COLS:
        return col
    return _off_board(col)


def encode(payload: Any) -> str:
    """A payload as one line: a prompt ``(view, turn)`` as JSON (:func:`encode_prompt`), anything else
    as its text."""
    if isinstance(payload, tuple) and len(payload) == 2:
        return encode_prompt(*payload)
    return str(payload)


def decode(line: str) -> tuple[list[list[int]], int]:
    """The inverse of :func:`encode` for prompts: ``(view, turn)`` (the kit's round-trip check)."""
    return decode_prompt(line)


def encode_prompt(view: list[list[int]], turn: int) -> str:
    """The JSON prompt line for a program bot: ``{"view": [[...], ...], "turn": N}``."""
    rows = ", ".join("[" + ", ".join(map(str, row)) + "]" for row in view)
    return f'{{"view": [{rows}], "turn": {turn}}}'


def decode_prompt(line: str) -> tuple[list[list[int]], int]:
    """``(view, turn)`` from a prompt line (what a program bot does; used by tests and tools)."""
    data = json.loads(line)
    return data["view"], data["turn"]
