"""The course's Gomoku for people: its board as a picture for replay pages (the opening's four
stones, the last move, the five that won), its games as Piskvork ``.psq`` and SGF files, and what a
person playing it sees and types (``kothkit play``)."""

from __future__ import annotations

from kothkit import formats
from kothkit.game import Setup
from kothkit.people import POINTS, Grid, Mistake, Turn

from . import codec
from .match import ClassicMatch
from .rules import BLACK, DIRECTIONS, EMPTY, OPENINGS, SIZE, on_board

COLOURS = {"X": "#111111", "O": "#f5f5f5"}


def five_through(match: ClassicMatch) -> tuple[tuple[int, int], ...]:
    """The winning run through the last move, if it made five or more."""
    if not match.moves:
        return ()
    _, row, col = match.moves[-1]
    colour = match.board.at(row, col)
    for dr, dc in DIRECTIONS:
        run = [(row, col)]
        for sign in (1, -1):
            r, c = row + sign * dr, col + sign * dc
            while on_board(r, c) and match.board.at(r, c) == colour:
                run.append((r, c))
                r, c = r + sign * dr, c + sign * dc
        if len(run) >= 5:
            return tuple(sorted(run))
    return ()


def picture(match: ClassicMatch) -> Grid:
    marks = {EMPTY: ".", BLACK: "X"}
    rows = tuple("".join(marks.get(match.board.at(r, c), "O") for c in range(SIZE)) for r in range(SIZE))
    last = match.moves[-1][1:] if match.moves else None
    names = match.setup.players
    won = match.outcome is not None and match.outcome.winner is not None and "five" in match.outcome.reason
    return Grid(rows=rows, pieces=COLOURS, style=POINTS, title=f"black: {names[0]}, white: {names[1]}",
                last=(last,) if last else (), line=five_through(match) if won else (),
                col_labels=tuple(str(c) for c in range(SIZE)), row_labels=tuple(str(r) for r in range(SIZE)))


def _stones(t) -> list[formats.Stone]:
    r = t.record
    match = ClassicMatch(Setup(players=r.players, seed=r.seed, rules=t.rules))
    stones = [formats.Stone(col, row, colour == BLACK) for row, col, colour in OPENINGS[match.rules["opening"]]]
    for step in t.steps:
        if step.rejected is not None:
            break
        before = len(match.moves)
        if match.play(step.seat, step.reply) is not None:
            break
        for seat, row, col in match.moves[before:]:
            stones.append(formats.Stone(col, row, seat == 0, step.ms))
    return stones


def psq(t) -> str:
    opening = len(OPENINGS[ClassicMatch.check_rules(t.rules)["opening"]])
    return formats.psq(SIZE, SIZE, _stones(t), t.record.players[0], t.record.players[1], opening=opening)


def sgf(t) -> str:
    r = t.record
    won = None if r.winner is None else r.winner == r.players[0]
    return formats.sgf(SIZE, SIZE, _stones(t), r.players[0], r.players[1], formats.sgf_result(won, r.verdict),
                       formats.sgf_date(t.finished_at),
                       comment=r.reason, game_name=f"{r.game} #{r.index} {r.id[:12]}")


# -- play by a person (kothkit play) ------------------------------------------------------------


def human(match: ClassicMatch, prompt):
    """A person's turn: START is answered OK for them; at TURN they type ``row col`` (``row,col`` too)."""
    if match.ready < 2:
        return Turn(board="", asks="", parse=lambda text: "OK", auto="OK")
    mark = "X black" if prompt.seat == 0 else "O white"

    def parse(text: str) -> str:
        cell = codec.parse_move(text.replace(",", " "))
        if cell is None:
            raise Mistake(f"cannot read {text!r}: a move is two numbers, the row (down the left) then the "
                          f"column (across the top), e.g. 5 6")
        return codec.move(*cell)

    return Turn(board=match.render(), asks=f"your move ({mark}): row col, e.g. 5 6", parse=parse,
                choices=f"type an empty cell: row and column, each 0 to {SIZE - 1}", picture=picture(match),
                cell=lambda row, col: f"{row} {col}")
