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

from kothkit.game import Match, Outcome, Prompt, Rejected, Setup, Verdict

from kothkit_connect4_hidden import codec
from kothkit_connect4_hidden.rules import COLS, MAX_TURNS, ROWS, STRIDE, hidden_cells, render

WIN = "four in a row"
DRAW_FULL = "draw: the board is full"
DRAW_TURNS = f"draw: {MAX_TURNS} turns without four in a row"


# Prompt(seat, payload) without the named tuple's keyword-handling constructor: one a turn.
_new = tuple.__new__
_NO_NOTICES = ()
# __init__ and next() spell the 6x7 board out (list literals, six rows unpacked): hot path.
assert (ROWS, COLS) == (6, 7)


class Connect4Match(Match):
    """One game.  ``board`` is the true board (rows bottom-up); ``moves`` the columns played."""

    codec = codec  # the lines on the wire: a prompt (view, turn) as JSON, and back

    def __init__(self, setup: Setup) -> None:
        super().__init__(setup)
        #: What each seat sees, rows bottom-up; copied into each prompt.  The
        #: untaped rows (1, 3, 5) are the same list objects in both views.
        r1, r3, r5 = [0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0]
        self.views = ([[0, 0, 0, 0, 0, 0, 0], r1, [0, 0, 0, 0, 0, 0, 0], r3, [0, 0, 0, 0, 0, 0, 0], r5],
                      [[0, 0, 0, 0, 0, 0, 0], r1, [0, 0, 0, 0, 0, 0, 0], r3, [0, 0, 0, 0, 0, 0, 0], r5])
        self.heights = [0, 0, 0, 0, 0, 0, 0]
        #: One bitboard per seat (see rules.bit); the true board is derived from them.
        self.bits = [0, 0]
        self.turn = 0
        #: Column given on each turn (a full column is a pass and is still listed).
        self.moves: list[int] = []
        #: Column of the last stone placed (passes place none), or -1.
        self.last_col = -1
        # The current step: a Prompt, the Outcome once over, None after a reply was applied.
        self._step: Prompt | Outcome | None = None

    @property
    def board(self) -> list[list[int]]:
        """The true board, rows bottom-up (a fresh list)."""
        b0, b1 = self.bits
        return [
            [1 if b0 >> (c * STRIDE + r) & 1 else 2 if b1 >> (c * STRIDE + r) & 1 else 0 for c in range(COLS)]
            for r in range(ROWS)
        ]

    @property
    def last(self) -> tuple[int, int] | None:
        """(row, col) of the last stone placed, or None."""
        c = self.last_col
        return None if c < 0 else (self.heights[c] - 1, c)

    def next(self) -> Prompt | Outcome:
        step = self._step
        if step is None:
            turn = self.turn
            seat = turn & 1
            r0, r1, r2, r3, r4, r5 = self.views[seat]
            view = [r0.copy(), r1.copy(), r2.copy(), r3.copy(), r4.copy(), r5.copy()]
            step = self._step = _new(Prompt, (seat, (view, turn), _NO_NOTICES, "move"))
        return step

    def play(self, seat: int, reply: Any) -> Rejected | None:
        if no := self.not_due(seat):  # asks next(), which answers from the step it keeps
            return no
        turn = self.turn
        if type(reply) is int and 0 <= reply < COLS:
            col = reply
        else:
            col = codec.parse_column(reply)
            if type(col) is not int:
                return col
        self.moves.append(col)
        self._step = None
        heights = self.heights
        row = heights[col]
        if row < ROWS:
            heights[col] = row + 1
            # Shown in the mover's view; an untaped row is shared by both views.
            self.views[seat][row][col] = seat + 1
            b = self.bits[seat] | (1 << (col * STRIDE + row))
            self.bits[seat] = b
            self.last_col = col
            # A win on the stone that fills the board is a win: check it before the draw.
            # Nobody has four stones before turn 6.  (rules.has_four, inlined: hot path.)
            if turn >= 6:
                m = b & (b >> 1)
                if m & (m >> 2):
                    self._step = self.win(seat, WIN)
                    return None
                m = b & (b >> 7)
                if m & (m >> 14):
                    self._step = self.win(seat, WIN)
                    return None
                m = b & (b >> 6)
                if m & (m >> 12):
                    self._step = self.win(seat, WIN)
                    return None
                m = b & (b >> 8)
                if m & (m >> 16):
                    self._step = self.win(seat, WIN)
                    return None
        turn += 1
        self.turn = turn
        if turn >= MAX_TURNS:
            self._step = self.draw(DRAW_FULL if sum(heights) == ROWS * COLS else DRAW_TURNS)
        return None

    def forfeit(self, seat: int, verdict: Verdict, reason: str) -> Outcome:
        outcome = super().forfeit(seat, verdict, reason)
        self._step = self.outcome  # what next() answers from now on
        return outcome

    # -- for people: drawn in views.py, so that a picture's edit changes no game's id --------------
    def picture(self) -> Any:
        from kothkit_connect4_hidden.views import picture

        return picture(self)

    def human(self, prompt: Prompt) -> Any:
        from kothkit_connect4_hidden.views import human

        return human(prompt)

    def legal_replies(self) -> list[int]:
        # Every column is legal (a full one is a pass) until the game is over.
        return [] if self.outcome is not None else list(range(COLS))

    def hidden_from(self, seat: int) -> set[tuple[int, int]]:
        return hidden_cells(self.board, seat + 1)

    def reveals(self, seat: int, payload: Any, hidden: Any) -> set[tuple[int, int]]:
        """The hidden cells (from ``hidden_from(seat)``) that ``payload`` shows as not empty."""
        try:
            view = payload[0]
            return {(r, c) for r, c in hidden if view[r][c] != 0}
        except (TypeError, IndexError, KeyError):
            return set()

    def render(self) -> str:
        """The true board, the last stone in brackets, and whose turn it is or the outcome."""
        text = render(self.board, last=self.last)
        if self.outcome is not None:
            o = self.outcome
            who = "nobody" if o.winner is None else f"seat {o.winner} ({'XO'[o.winner]})"
            status = f"turn {self.turn}: over, winner {who}: {o.reason}"
        else:
            status = f"turn {self.turn}: seat {self.turn & 1} ({'XO'[self.turn & 1]}) to move"
        legend = ("columns 0-6 across the bottom (a move is its column), rows numbered up the left; [ ] the latest "
                  "stone; # a row where each player sees only its own stones")
        return f"{text}\n{status}\n{legend}"
