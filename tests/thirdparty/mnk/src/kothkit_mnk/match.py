"""One m,n,k game as a state machine: seat 0 plays X and opens, seat 1 plays O."""

from __future__ import annotations

import random
from typing import Any

from kothkit.game import End, Match, Message, Outcome, Prompt, Rejected, Setup, Verdict

from kothkit_mnk import codec
from kothkit_mnk.rules import EMPTY, O, X, check_rules, empty_board, empty_cells, makes_line, place

MARKS = (X, O)


class MnkMatch(Match):
    codec = codec  # encode and decode are the codec's
    check_rules = staticmethod(check_rules)

    def __init__(self, setup: Setup) -> None:
        super().__init__(setup)
        self.k = self.rules["k"]
        self.board = empty_board(self.rules["m"], self.rules["n"])
        self.moves = 0
        # Random opening stones come from the game's seed only: same seed, same opening.
        rng = random.Random(setup.seed)
        for _ in range(self.rules["opening"]):
            row, col = rng.choice(empty_cells(self.board))
            self.board = place(self.board, row, col, MARKS[self.moves % 2])
            self.moves += 1

    def to_move(self) -> int:
        return self.moves % 2

    def next(self) -> Prompt | Outcome:
        if self.outcome is not None:
            return self.outcome
        seat = self.to_move()
        return Prompt(seat=seat, payload=codec.Turn(MARKS[seat], self.k, self.board))

    def play(self, seat: int, reply: Any) -> Rejected | None:
        if no := self.not_due(seat):
            return no
        cell = codec.parse_move(reply)
        if cell is None:
            return Rejected(Verdict.INVALID_REPLY, f"expected 'ROW COL' (two integers), got {codec.quote(reply)}")
        row, col = cell
        m, n = len(self.board), len(self.board[0])
        if not (0 <= row < m and 0 <= col < n):
            return Rejected(Verdict.ILLEGAL_MOVE,
                            f"{row} {col} is off the {m}x{n} board (rows 0-{m - 1}, columns 0-{n - 1})")
        if self.board[row][col] != EMPTY:
            return Rejected(Verdict.ILLEGAL_MOVE, f"{row} {col} is already taken by {self.board[row][col]}")
        self.board = place(self.board, row, col, MARKS[seat])
        self.moves += 1
        if makes_line(self.board, row, col, self.k):
            self.win(seat, f"{self.k} in a row")
        elif not empty_cells(self.board):
            self.draw("board full")
        return None

    def final(self, outcome: Outcome) -> tuple[Message, ...]:
        return tuple(Message(seat, codec.End(End.of(outcome, seat))) for seat in (0, 1))

    def legal_replies(self) -> list[str]:
        if self.outcome is not None:
            return []
        return [codec.format_move(r, c) for r, c in empty_cells(self.board)]

    def render(self) -> str:
        """The board, one row a line, with whose turn it is or how the game ended."""
        status = (f"{MARKS[self.to_move()]} to move" if self.outcome is None
                  else f"over: {self.outcome.reason}, winner: "
                       + ("none" if self.outcome.winner is None else MARKS[self.outcome.winner]))
        return "\n".join([*self.board, status])
