"""The Swap2 game for people: its board as a picture for replay pages, and its games as Piskvork
``.psq`` and SGF files (the opening's stones in the order they were placed)."""

from __future__ import annotations

from kothkit import formats
from kothkit.game import Setup
from kothkit.picture import POINTS, Grid

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


def _stones(t) -> tuple[list[formats.Stone], Swap2Match]:
    r = t.record
    match = Swap2Match(Setup(players=r.players, seed=r.seed, rules=t.rules))
    stones: list[formats.Stone] = []
    for step in t.steps:
        if step.rejected is not None:
            break
        before = len(match.board.stones)
        if match.play(step.seat, step.reply) is not None:
            break
        for i, s in enumerate(match.board.stones[before:]):
            stones.append(formats.Stone(s.x, s.y, s.color == BLACK, step.ms if i == 0 else 0.0))
    return stones, match


def _colours(t, match: Swap2Match) -> tuple[str, str, bool | None]:
    """(black's name, white's name, whether black won or None for a draw)."""
    r = t.record
    black_seat = match.black_seat if match.black_seat is not None else 0
    black, white = r.players[black_seat], r.players[1 - black_seat]
    won = None if r.winner is None else r.winner == black
    return black, white, won


def psq(t) -> str:
    stones, match = _stones(t)
    black, white, _ = _colours(t, match)
    return formats.psq(SIZE, SIZE, stones, black, white)


def sgf(t) -> str:
    from kothkit.archive import iso_time

    stones, match = _stones(t)
    black, white, won = _colours(t, match)
    date = (iso_time(t.finished_at) or "")[:10] or None
    return formats.sgf(SIZE, SIZE, stones, black, white, formats.sgf_result(won, t.record.verdict), date,
                       comment=t.record.reason, game_name=f"{t.record.game} #{t.record.index} {t.record.id[:12]}")
