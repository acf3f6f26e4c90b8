"""The Swap2 wire format: prompts and EXIT lines out, bots' replies in (pure functions).

Judge -> bot (one line each, fields separated by one space)::

    A []                      opener: place two black stones and one white
    B BOARD                   second player: B | W (x,y) | (x,y) (x,y)
    C BOARD                   opener, after B placed two stones: B | W
    N BOARD                   game phase, N = stones placed in the game phase so far
    EXIT NAME | EXIT TIE      no reply expected

BOARD is ``[((x,y),"B"),((x,y),"W"),...]`` without spaces.  Replies may
contain any whitespace anywhere: it is all removed before parsing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import attrs

from kothkit_gomoku_swap2.rules import BLACK, SIZE, WHITE, Stone

#: How much of a bad reply is quoted back in a verdict's reason.
QUOTE_LIMIT = 80
#: Coordinates with more digits than this are off the board whatever they say; capping
#: them keeps int() away from Python's 4300-digit conversion limit.
MAX_DIGITS = 6
_TOKEN = re.compile(r"\((-?\d+),(-?\d+)\)|([BW])")
_BOARD_ENTRY = re.compile(r'\(\((-?\d+),(-?\d+)\),"([BW])"\)')

Cell = tuple[int, int]
Token = Cell | str


class Ask(NamedTuple):
    """A prompt: ``tag`` is "A", "B", "C" or the game-phase round number as a string.

    A named tuple rather than an attrs record (like the core's Prompt): one is made every move.
    """

    tag: str
    stones: tuple[Stone, ...] = ()


@attrs.frozen
class Exit:
    """The final line: the winner's bot name, or None for a tie."""

    winner: str | None


def format_cell(cell: Cell) -> str:
    return f"({cell[0]},{cell[1]})"


#: Every cell of the board by its canonical text "(x,y)": the usual game-phase reply is a lookup.
CELL_TEXT: dict[str, Cell] = {format_cell((x, y)): (x, y) for x in range(SIZE) for y in range(SIZE)}


_ENTRY: dict[Stone, str] = {}


def _entry(s: Stone) -> str:
    text = _ENTRY[s] = f'(({s.x},{s.y}),"{s.color}")'
    return text


def format_entries(stones: Iterable[Stone]) -> str:
    """The entries of a BOARD field, without its brackets."""
    # Formatting each of the 450 possible entries once keeps this cheap as the board fills.
    get = _ENTRY.get
    return ",".join([get(s) or _entry(s) for s in stones])


def format_board(stones: Iterable[Stone]) -> str:
    return "[" + format_entries(stones) + "]"


def encode(payload: Ask | Exit | str) -> str:
    if isinstance(payload, Ask):
        return f"{payload.tag} {format_board(payload.stones)}"
    if isinstance(payload, Exit):
        return f"EXIT {payload.winner if payload.winner is not None else 'TIE'}"
    return str(payload)


def parse_board(text: str) -> tuple[Stone, ...] | None:
    """The stones of a BOARD field (whitespace ignored), or None if it is not one."""
    text = squeeze(text)
    if not (text.startswith("[") and text.endswith("]")):
        return None
    body = text[1:-1]
    stones = []
    pos = 0
    while pos < len(body):
        m = _BOARD_ENTRY.match(body, pos)
        if not m:
            return None
        stones.append(Stone(int(m.group(1)), int(m.group(2)), m.group(3)))
        pos = m.end()
        if pos < len(body):
            if body[pos] != ",":
                return None
            pos += 1
            if pos == len(body):
                return None
    return tuple(stones)


def decode(line: str) -> Ask | Exit | None:
    """A judge line back into its payload (for bots and tests), or None if it is not one."""
    tag, _, rest = line.strip().partition(" ")
    if tag == "EXIT":
        return Exit(None if rest == "TIE" else rest) if rest else None
    if tag in ("A", "B", "C") or tag.isdigit():
        stones = parse_board(rest)
        return Ask(tag, stones) if stones is not None else None
    return None


def squeeze(text: str) -> str:
    """The reply with every whitespace character removed (the seed's rule)."""
    return "".join(text.split())


def _number(digits: str) -> int:
    sign = -1 if digits.startswith("-") else 1
    digits = digits.lstrip("-").lstrip("0") or "0"
    if len(digits) > MAX_DIGITS:
        return sign * 10**MAX_DIGITS
    return sign * int(digits)


def tokenize(text: str) -> list[Token] | None:
    """A reply as a list of cells ``(x, y)`` and colour letters, or None if it does not parse."""
    text = squeeze(text)
    tokens: list[Token] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            return None
        if m.group(3):
            tokens.append(m.group(3))
        else:
            tokens.append((_number(m.group(1)), _number(m.group(2))))
        pos = m.end()
    return tokens


def format_reply(tokens: Sequence[Token]) -> str:
    """The canonical text of a reply (cells and letters separated by one space)."""
    return " ".join(t if isinstance(t, str) else format_cell(t) for t in tokens)


def quote(reply: object) -> str:
    """A bad reply, shortened and escaped, fit to be shown in a verdict."""
    text = reply if isinstance(reply, str) else repr(reply)
    if len(text) > QUOTE_LIMIT:
        text = text[:QUOTE_LIMIT] + "..."
    return repr(text)


#: The reply shapes each prompt accepts: "c" is a cell, a letter is itself.
SHAPES = {
    "A": (("c", "c", "c"),),
    "B": ((BLACK,), (WHITE, "c"), ("c", "c")),
    "C": ((BLACK,), (WHITE,)),
    "N": (("c",),),
}
EXPECTED = {
    "A": "three cells '(x,y) (x,y) (x,y)' (two black, one white)",
    "B": "'B', 'W (x,y)' or '(x,y) (x,y)' (one black, one white)",
    "C": "'B' or 'W'",
    "N": "one cell '(x,y)'",
}


def fits(tokens: Sequence[Token], shape: Sequence[str]) -> bool:
    if len(tokens) != len(shape):
        return False
    for t, s in zip(tokens, shape):
        if s == "c":
            if not isinstance(t, tuple):
                return False
        elif t != s:
            return False
    return True


def read_reply(reply: object, kind: str) -> list[Token] | str:
    """The tokens of a reply to a prompt of ``kind`` ("A", "B", "C" or "N"), or why it does not parse."""
    if not isinstance(reply, str):
        return f"expected a line of text, got {quote(reply)}"
    tokens = tokenize(reply)
    if tokens is None or not any(fits(tokens, s) for s in SHAPES[kind]):
        return f"cannot read {quote(reply)}: expected {EXPECTED[kind]}"
    return tokens
