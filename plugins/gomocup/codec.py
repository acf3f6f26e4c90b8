"""Piskvork's lines: what the manager sends (as text; a payload here is the line itself) and what
an engine's replies say.  Replies are read whatever their letter case, as Piskvork reads them."""

from __future__ import annotations

import re

#: A move: ``x,y`` (spaces around the comma or the numbers are allowed).
_MOVE = re.compile(r"\s*(\d{1,4})\s*,\s*(\d{1,4})\s*")
#: One ``key="value"`` of an ABOUT reply.
_ABOUT = re.compile(r'(\w{1,20})\s{0,4}=\s{0,4}"([^"]{0,200})"')


def encode(payload: object) -> str:
    return str(payload)


def decode(line: str) -> str:
    return line


def is_ok(reply: str) -> bool:
    """``OK``, perhaps with words after it (``OK - ready``)."""
    word = reply.strip().split(" ", 1)[0] if reply.strip() else ""
    return word.upper() == "OK"


def refusal(reply: str) -> str | None:
    """What an ``ERROR ...`` or ``UNKNOWN ...`` reply says, or None for another line."""
    head = reply.strip().split(" ", 1)
    if head[0].upper() in ("ERROR", "UNKNOWN"):
        return reply.strip()[:120]
    return None


def move(reply: str) -> tuple[int, int] | None:
    """(x, y) of a ``x,y`` reply, or None."""
    if len(reply) > 64:
        return None
    m = _MOVE.fullmatch(reply)
    return (int(m.group(1)), int(m.group(2))) if m else None


def moves(reply: str) -> list[tuple[int, int]] | None:
    """The moves of a SWAP2BOARD reply (``x,y x,y x,y``), or None if it is not a list of moves."""
    if len(reply) > 200:  # three moves are short; a long line is not read (nor backtracked over)
        return None
    # "x, y" with a space after the comma: put the halves back together.
    text = re.sub(r"\s*,\s*", ",", reply.strip())
    parts = text.split()
    if not parts or len(parts) > 3:
        return None
    cells = [move(p) for p in parts]
    return None if any(c is None for c in cells) else [c for c in cells if c is not None]


def is_swap(reply: str) -> bool:
    return reply.strip().upper() == "SWAP"


def about(reply: str) -> dict[str, str]:
    """The ``key="value"`` pairs of an ABOUT reply (name, version, author, country, www, email)."""
    # Bounded repetitions over a bounded text: a bot's 64 KiB line cannot make it backtrack for long.
    return {k.lower(): v[:80] for k, v in _ABOUT.findall(reply[:2000])[:12]}


def board_line(x: int, y: int, field: int) -> str:
    """One stone of a BOARD (or SWAP2BOARD) command: ``x,y,field`` (1 own, 2 the opponent's)."""
    return f"{x},{y},{field}"
