"""Gomocup games for people: the board as a picture for replay pages, and the games as Piskvork
``.psq`` (Gomocup's own record; a Swap2 game's stones alternate from black, as Piskvork reads
them) and SGF files."""

from __future__ import annotations

from kothkit import formats
from kothkit.game import Setup
from kothkit.people import POINTS, Grid

from .match import GomocupMatch
from .rules import BLACK, WHITE

COLOURS = {"X": "#111111", "O": "#f5f5f5"}


def picture(match: GomocupMatch) -> Grid:
    size = match.size
    marks = {BLACK: "X", WHITE: "O"}
    rows = tuple("".join(marks.get(match.board.at(x, y), ".") for x in range(size)) for y in range(size))
    last = match.board.stones[-1] if match.board.stones else None
    if match.black_seat is None:
        title = f"Swap2 opening: {match.engine(0)} places, {match.engine(1)} chooses"
    else:
        title = f"black: {match.engine(match.black_seat)}, white: {match.engine(1 - match.black_seat)}"
    return Grid(rows=rows, pieces=COLOURS, style=POINTS, title=title,
                last=((last[1], last[0]),) if last else (), line=tuple((y, x) for x, y in match.last_line),
                col_labels=tuple(str(x) for x in range(size)), row_labels=tuple(str(y) for y in range(size)))


def _replayed(t) -> tuple[list[formats.Stone], GomocupMatch]:
    r = t.record
    match = GomocupMatch(Setup(players=r.players, seed=r.seed, rules=t.rules))
    stones = [formats.Stone(x, y, c == BLACK) for x, y, c in match.board.stones]
    for step in t.steps:
        if step.rejected is not None:
            break
        before = len(match.board.stones)
        if match.play(step.seat, step.reply) is not None:
            break
        for i, (x, y, c) in enumerate(match.board.stones[before:]):
            stones.append(formats.Stone(x, y, c == BLACK, step.ms if i == 0 else 0.0))
    return stones, match


def _names(t, match: GomocupMatch) -> tuple[str, str]:
    black = match.black_seat if match.black_seat is not None else 0
    return t.record.players[black], t.record.players[1 - black]


def psq(t) -> str:
    stones, match = _replayed(t)
    black, white = _names(t, match)
    return formats.psq(match.size, match.size, stones, black, white, opening=match.opening_stones)


def sgf(t) -> str:
    r = t.record
    stones, match = _replayed(t)
    black, white = _names(t, match)
    won = None if r.winner is None else r.winner == black
    return formats.sgf(match.size, match.size, stones, black, white, formats.sgf_result(won, r.verdict),
                       formats.sgf_date(t.finished_at),
                       comment=r.reason, game_name=f"{r.game} #{r.index} {r.id[:12]}")
