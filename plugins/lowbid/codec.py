"""The lines on the wire: the judge's BID and END lines out, a bid in.  Pure functions that never raise.

Judge -> bot:  ``BID ROUND ROUNDS MAX_BID SEAT B0 B1 ... Bn-1`` (this round, 1-based, of ROUNDS; bids
are 1 to MAX_BID; you are SEAT; last round's bids of every seat, 0 for none), and once the game is
over ``END P0 P1 ... Pn-1`` (every seat's points).  Bot -> judge: its bid, e.g. ``3``.
A function bot is called ``f(round, rounds, max_bid, seat, last_bids, state)`` and returns ``(bid, state)``.
"""

from __future__ import annotations

import re
from typing import Any

import attrs
from kothkit.game import Rejected, Verdict

# ASCII digits only: int() takes other scripts' digits and "1_000" too.
_NUMBER = re.compile(r"\s*([+-]?)0*([0-9]+)\s*")
# More digits than this are past any bid (and int() refuses more than 4300).
_MAX_DIGITS = 9
_BID = re.compile(r"BID ([0-9]+) ([0-9]+) ([0-9]+) ([0-9]+)((?: [0-9]+)*)")
_END = re.compile(r"END((?: -?[0-9]+(?:\.[0-9]+)?)*)")


@attrs.frozen
class Final:
    """The last line: every seat's points, in seat order."""

    points: tuple[float, ...]


def encode(payload: Any) -> str:
    """A payload as one line: a prompt is ``(round, rounds, max_bid, seat, last_bids)``; the end a :class:`Final`."""
    if isinstance(payload, Final):
        return "END" + "".join(f" {_number(p)}" for p in payload.points)
    rnd, rounds, max_bid, seat, last = payload
    return f"BID {rnd} {rounds} {max_bid} {seat}" + "".join(f" {b}" for b in last)


def decode(line: str) -> Any:
    """A judge's line back into its payload, or None (what a bot does; the kit's round-trip check)."""
    m = _BID.fullmatch(line)
    if m:
        rnd, rounds, max_bid, seat = (int(m.group(i)) for i in range(1, 5))
        return (rnd, rounds, max_bid, seat, tuple(int(b) for b in m.group(5).split()))
    m = _END.fullmatch(line)
    if m:
        return Final(tuple(float(p) for p in m.group(1).split()))
    return None


def _number(p: float) -> str:
    return str(int(p)) if float(p).is_integer() else str(p)


def parse_bid(reply: Any, max_bid: int) -> int | Rejected:
    """The bid a reply names (1 to ``max_bid``), or why it is refused: not a whole number
    (text, a float, a bool, None) is an ``invalid-reply``, a number outside 1..max_bid an ``illegal-move``."""
    if type(reply) is int:
        bid = reply
    elif isinstance(reply, str):
        m = _NUMBER.fullmatch(reply)
        if m is None:
            return Rejected(Verdict.INVALID_REPLY, f"expected a bid, a whole number 1-{max_bid}, got {quote(reply)}")
        digits = m.group(2)
        bid = int(m.group(1) + digits) if len(digits) <= _MAX_DIGITS else 10**_MAX_DIGITS
    else:
        return Rejected(Verdict.INVALID_REPLY, f"a bid is a whole number 1-{max_bid}, got {quote(reply)}")
    if not 1 <= bid <= max_bid:
        return Rejected(Verdict.ILLEGAL_MOVE, f"bid {quote(reply, 20)} is out of range: bids are 1-{max_bid}")
    return bid


def quote(reply: Any, limit: int = 40) -> str:
    """A reply fit to be shown in a verdict: shortened, never raising."""
    try:
        text = repr(reply)
    except Exception:  # a function bot's object whose __repr__ raises
        text = f"<{type(reply).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."
