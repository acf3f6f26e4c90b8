"""The wire format: prompts and end lines out, ``ROW COL`` replies in.  Pure, and never raises."""

from __future__ import annotations

import re
from typing import Any

import attrs

from kothkit_mnk.rules import Board

_MOVE = re.compile(r"\s*([+-]?[0-9]{1,6})\s+([+-]?[0-9]{1,6})\s*")
_TURN = re.compile(r"TURN ([XO]) ([0-9]+) ([.XO]+(?:/[.XO]+)*)")
RESULTS = ("WIN", "LOSS", "DRAW")


@attrs.frozen
class Turn:
    """The prompt: place ``mark``; ``k`` in a row wins; ``board`` as it stands."""

    mark: str
    k: int
    board: Board


@attrs.frozen
class End:
    """The final line, as the receiving seat sees it: WIN, LOSS or DRAW."""

    result: str


def encode(payload: Turn | End) -> str:
    if isinstance(payload, Turn):
        return f"TURN {payload.mark} {payload.k} {'/'.join(payload.board)}"
    return f"END {payload.result}"


def decode(line: str) -> Turn | End | None:
    """A judge's line back into its payload (used by bots and by the codec round-trip check)."""
    m = _TURN.fullmatch(line)
    if m:
        return Turn(m.group(1), int(m.group(2)), tuple(m.group(3).split("/")))
    if line.startswith("END ") and line[4:] in RESULTS:
        return End(line[4:])
    return None


def parse_move(reply: Any) -> tuple[int, int] | None:
    """(row, col) from a ``ROW COL`` line, or None if it is not two integers of at most six digits."""
    if not isinstance(reply, str):
        return None
    m = _MOVE.fullmatch(reply)
    return (int(m.group(1)), int(m.group(2))) if m else None


def format_move(row: int, col: int) -> str:
    return f"{row} {col}"


def quote(reply: Any, limit: int = 40) -> str:
    """A reply fit to be shown in a verdict: shortened, never raising."""
    try:
        text = repr(reply)
    except Exception:
        text = f"<{type(reply).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."
