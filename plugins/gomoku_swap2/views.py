"""The Swap2 game for people: its board as a picture for replay pages, and its games as Piskvork
``.psq`` (those Piskvork can read) and SGF files (the opening's stones in the order they were
placed), and what a person playing it sees and types (``kothkit play``)."""

from __future__ import annotations

import re

from kothkit import formats
from kothkit.game import Setup
from kothkit.people import POINTS, Grid, Mistake, Turn

from kothkit_gomoku_swap2.codec import format_reply, read_reply
from kothkit_gomoku_swap2.match import Swap2Match
from kothkit_gomoku_swap2.rules import BLACK, SIZE

COLOURS = {"X": "#111111", "O": "#f5f5f5"}


def picture(match: Swap2Match) -> Grid:
    cells = match.board.cells
    rows = tuple("".join("." if (x, y) not in cells else "X" if cells[(x, y)] == BLACK else "O"
                         for x in range(SIZE)) for y in range(SIZE))
    last = match.board.stones[-1] if match.board.stones else None
    names = match.setup.players
    if match.black_seat is None:
        title = f"opening, phase {match.phase}: {names[0]} places, {names[1]} chooses"
    else:
        title = f"black: {names[match.black_seat]}, white: {names[1 - match.black_seat]}"
    return Grid(rows=rows, pieces=COLOURS, style=POINTS, title=title,
                last=((last.y, last.x),) if last else (),
                line=tuple((y, x) for x, y in match.last_line or ()),
                col_labels=tuple(str(x) for x in range(SIZE)), row_labels=tuple(str(y) for y in range(SIZE)))


def _stones(t) -> tuple[list[formats.Stone], Swap2Match, int]:
    """The stones in the order placed, the match at the end, and how many the opening placed."""
    r = t.record
    match = Swap2Match(Setup(players=r.players, seed=r.seed, rules=t.rules))
    stones: list[formats.Stone] = []
    opening = 0
    for step in t.steps:
        if step.rejected is not None:
            break
        before = len(match.board.stones)
        in_opening = match.phase != "game"
        if match.play(step.seat, step.reply) is not None:
            break
        for i, s in enumerate(match.board.stones[before:]):
            stones.append(formats.Stone(s.x, s.y, s.color == BLACK, step.ms if i == 0 else 0.0))
        if in_opening:
            opening = len(stones)
    return stones, match, opening


def _colours(t, match: Swap2Match) -> tuple[str, str, bool | None]:
    """(black's name, white's name, whether black won or None for a draw)."""
    r = t.record
    black_seat = match.black_seat if match.black_seat is not None else 0
    black, white = r.players[black_seat], r.players[1 - black_seat]
    won = None if r.winner is None else r.winner == black
    return black, white, won


def psq(t) -> str:
    """Only the games Piskvork reads right: those whose opening ended with as many white stones as
    black (B's ``W (x,y)``); the others are refused (:class:`kothkit.formats.Unwritable`)."""
    stones, match, opening = _stones(t)
    black, white, _ = _colours(t, match)
    return formats.psq(SIZE, SIZE, stones, black, white, opening=opening)


def sgf(t) -> str:
    stones, match, _ = _stones(t)
    black, white, won = _colours(t, match)
    return formats.sgf(SIZE, SIZE, stones, black, white, formats.sgf_result(won, t.record.verdict),
                       formats.sgf_date(t.finished_at),
                       comment=t.record.reason, game_name=f"{t.record.game} #{t.record.index} {t.record.id[:12]}")


# -- play by a person (kothkit play) ------------------------------------------------------------

#: A cell as a person types it: "7,8", "7 8" or the protocol's "(7,8)".
_CELL = re.compile(r"\(?\s*(-?\d{1,6})\s*(?:,\s*|\s+)(-?\d{1,6})\s*\)?")
_TYPED = {
    "A": "three cells x,y: two black stones, then one white (e.g. 7,7 8,8 7,8)",
    "B": "b (swap: take black, the opener plays white), w x,y (take white and place a white stone), "
         "or x,y x,y (add two: a black stone, then a white one; the opener then chooses the colour)",
    "C": "b (take black) or w (take white)",
    "N": "one empty cell x,y (x across, y down, 0 to 14)",
}
_ASKS = {
    "A": "Swap2 opening, place three: two black stones and one white, as x,y x,y x,y",
    "B": "Swap2 opening, choose: 'b' to swap (play black), 'w x,y' to play white adding a white "
         "stone, or 'x,y x,y' to add two stones and let the opener choose",
    "C": "Swap2 opening, choose your colour: 'b' (black, moves next) or 'w' (white)",
}


def _entry(text: str) -> list:
    """A person's entry as protocol tokens: an optional leading b/w, then cells."""
    tokens: list = []
    rest = text.strip()
    if rest[:1].lower() in ("b", "w") and not rest[1:2].isalpha():
        tokens.append(rest[0].upper())
        rest = rest[1:]
    pos = 0
    while pos < len(rest):
        if rest[pos] in " \t,":
            pos += 1
            continue
        m = _CELL.match(rest, pos)
        if m is None:
            raise Mistake(f"cannot read {text!r}: a cell is x,y (two numbers), a colour b or w")
        tokens.append((int(m.group(1)), int(m.group(2))))
        pos = m.end()
    return tokens


def human(match: Swap2Match, prompt):
    """What a person sees and types at ``prompt``: the board, and the opening's choices as choices."""
    kind = match._kind()
    colour = match.color_of(prompt.seat)
    asks = _ASKS.get(kind) or f"your move ({'black X' if colour == BLACK else 'white O'}): a cell x,y, e.g. 7,7"

    def parse(text: str) -> str:
        tokens = _entry(text)
        reply = format_reply(tokens)
        if isinstance(read_reply(reply, kind), str):
            raise Mistake(f"cannot read {text!r}: expected {_TYPED[kind]}")
        return reply

    clicks = {"A": 3, "B": 2, "C": 0}.get(kind, 1)
    buttons = {"B": (("swap: play black", "B", 0), ("take white: then click a cell for a white stone", "W", 1)),
               "C": (("play black", "B", 0), ("play white", "W", 0))}.get(kind, ())
    return Turn(board=match.render(), asks=asks, parse=parse, choices=f"type {_TYPED[kind]}", picture=picture(match),
                cell=lambda row, col: f"{col},{row}", clicks=clicks, buttons=buttons)
