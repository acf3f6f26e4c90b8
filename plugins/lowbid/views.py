"""Lowest unique bid for people: the picture of the bids per round on replay pages, and what a person
playing a seat sees and types (``kothkit play``).  None of it decides a game: the match imports this
module only inside ``picture`` and ``human``, so an edit here plays no game again."""

from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from kothkit.game import Prompt
from kothkit.people import Mistake, Svg, Turn

from kothkit_lowbid import codec
from kothkit_lowbid.rules import NO_BID

if TYPE_CHECKING:
    from kothkit_lowbid.match import LowBidMatch

#: The winning bid of a round, a bid someone else made too, and a seat out of the game.
WON, SHARED, OUT = "#2a9d8f", "#e9ecef", "#ffffff"
CELL_W, CELL_H, LABEL_W = 64, 22, 70


def _name(name: str, limit: int = 9) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"


def picture(match: LowBidMatch) -> Svg:
    """A table: a column per seat (its bot's name), a row per round played, each cell the seat's bid
    (the round's winning bid filled green, a seat out of the game blank), and the points so far."""
    n, rows = match.seats, len(match.history)
    width, height = LABEL_W + n * CELL_W, (rows + 2) * CELL_H
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="13">']

    def text(x: float, y: float, what: str, weight: str = "normal", colour: str = "#212529") -> None:
        parts.append(f'<text x="{x}" y="{y + CELL_H * 0.7}" text-anchor="middle" font-weight="{weight}" '
                     f'fill="{colour}">{escape(what)}</text>')

    for s, name in enumerate(match.setup.players):
        text(LABEL_W + (s + 0.5) * CELL_W, 0, _name(name), "bold" if s not in match.out else "normal")
    for r, (bids, winner) in enumerate(zip(match.history, match.winners), 1):
        y = r * CELL_H
        text(LABEL_W / 2, y, f"round {r}")
        for s, bid in enumerate(bids):
            fill = OUT if bid == NO_BID else WON if s == winner else SHARED
            parts.append(f'<rect x="{LABEL_W + s * CELL_W + 2}" y="{y + 1}" width="{CELL_W - 4}" '
                         f'height="{CELL_H - 2}" fill="{fill}" stroke="#adb5bd"/>')
            if bid != NO_BID:
                won = s == winner
                text(LABEL_W + (s + 0.5) * CELL_W, y, str(bid), *(("bold", "#fff") if won else ("normal", "#212529")))
    y = (rows + 1) * CELL_H
    text(LABEL_W / 2, y, "points", "bold")
    for s, p in enumerate(match.points):
        text(LABEL_W + (s + 0.5) * CELL_W, y, "out" if s in match.out else str(p), "bold")
    parts.append("</svg>")
    title = (f"after round {rows} of {match.rules['rounds']}" if match.outcome is None
             else f"over: {match.outcome.reason}")
    return Svg(text="".join(parts), title=title)


def human(prompt: Prompt) -> Turn:
    """A person's bid, from the prompt alone: what a bot in the seat would see."""
    rnd, rounds, max_bid, seat, last = prompt.payload
    shown = " ".join("-" if b == NO_BID else str(b) for b in last)
    board = (f"round {rnd} of {rounds}; you are seat {seat}\n"
             + (f"last round's bids, seat by seat: {shown}" if rnd > 1 else "the first round: no bids yet"))

    def parse(entry: str) -> int:
        bid = codec.parse_bid(entry, max_bid)
        if not isinstance(bid, int):
            raise Mistake(f"cannot take {entry[:40]!r}: {bid.reason}")
        return bid

    return Turn(board=board, asks=f"your bid: a whole number from 1 to {max_bid}", parse=parse,
                choices=f"type a number from 1 to {max_bid}; the lowest bid nobody else makes wins the round")
