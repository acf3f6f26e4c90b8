"""The blindfold Connect-4 match: one game as a state machine the core's referee drives.

Seat 0 is player 1 and moves on even turns; seat 1 is player 2.  Each prompt
is ``(view, turn)``, the arguments of a function bot ``f(view, turn, state)``.

This sits in the hot path of tournaments of 10,000 rounds, so it keeps
per-seat views and column heights up to date as stones fall instead of
rebuilding them, and checks wins on bitboards: a turn costs a view copy (the
bot may scribble on it), one prompt record and a few integer operations.
"""

from __future__ import annotations

from typing import Any

from kothkit.game import ILLEGAL_MOVE, Match, Outcome, Prompt, Rejected, Setup
from kothkit_connect4_hidden import codec
from kothkit_connect4_hidden.rules import COLS, MAX_TURNS, ROWS, STRIDE, has_four, hidden_cells, render

WIN = "four in a row"
DRAW_FULL = "draw: the board is full"
DRAW_TURNS = f"draw: {MAX_TURNS} turns without four in a row"


class Connect4Match(Match):
    """One game.  ``board`` is the true board (rows bottom-up); ``moves`` the columns played."""

    def __init__(self, setup: Setup) -> None:
        super().__init__(setup)
        self.board = [[0] * COLS for _ in range(ROWS)]
        #: What each seat sees; kept in step with the board, copied into each prompt.
        self.views = ([[0] * COLS for _ in range(ROWS)], [[0] * COLS for _ in range(ROWS)])
        self.heights = [0] * COLS
        self.bits = [0, 0]
        self.turn = 0
        self.stones = 0
        #: Column given on each turn (a full column is a pass and is still listed).
        self.moves: list[int] = []
        #: (row, col) of the last stone placed, or None.
        self.last: tuple[int, int] | None = None
        self.outcome: Outcome | None = None
        self._prompt: Prompt | None = None

    def next(self) -> Prompt | Outcome:
        if self.outcome is not None:
            return self.outcome
        p = self._prompt
        if p is None:
            seat = self.turn & 1
            v = self.views[seat]
            view = [v[0][:], v[1][:], v[2][:], v[3][:], v[4][:], v[5][:]]
            p = self._prompt = Prompt(seat, (view, self.turn))
        return p

    def play(self, seat: int, reply: Any) -> Rejected | None:
        if self.outcome is not None or seat != (self.turn & 1):
            return Rejected(ILLEGAL_MOVE, "it is not this seat's turn")
        col = reply if type(reply) is int and 0 <= reply < COLS else codec.parse_column(reply)
        if type(col) is not int:
            return col
        self.moves.append(col)
        self._prompt = None
        row = self.heights[col]
        if row < ROWS:
            player = seat + 1
            self.heights[col] = row + 1
            self.board[row][col] = player
            self.views[seat][row][col] = player
            if row & 1:  # odd rows are in plain sight
                self.views[1 - seat][row][col] = player
            b = self.bits[seat] | (1 << (col * STRIDE + row))
            self.bits[seat] = b
            self.stones += 1
            self.last = (row, col)
            # A win on the stone that fills the board is a win: check it first.
            if has_four(b):
                self.outcome = Outcome(seat, WIN)
                return None
        self.turn += 1
        if self.turn >= MAX_TURNS:
            self.outcome = Outcome(None, DRAW_FULL if self.stones == ROWS * COLS else DRAW_TURNS)
        return None

    def forfeit(self, seat: int, kind: str, reason: str) -> Outcome:
        self.outcome = super().forfeit(seat, kind, reason)
        self._prompt = None
        return self.outcome

    def encode(self, payload: Any) -> str:
        if isinstance(payload, tuple) and len(payload) == 2:
            return codec.encode_prompt(*payload)
        return str(payload)

    def legal_replies(self) -> list[int]:
        # Every column is legal: a full one is a pass.
        return list(range(COLS))

    def hidden_from(self, seat: int) -> set[tuple[int, int]]:
        return hidden_cells(self.board, seat + 1)


def render_match(match: Match) -> str:
    """The true board of a match, the last stone in brackets, and whose turn or the outcome."""
    if not isinstance(match, Connect4Match):
        return repr(match)
    text = render(match.board, last=match.last)
    if match.outcome is not None:
        o = match.outcome
        who = "nobody" if o.winner is None else f"seat {o.winner} ({'XO'[o.winner]})"
        status = f"turn {match.turn}: over, winner {who}: {o.reason}"
    else:
        status = f"turn {match.turn}: seat {match.turn & 1} ({'XO'[match.turn & 1]}) to move"
    return f"{text}\n{status}"
