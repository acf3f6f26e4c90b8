"""One game of the course's 12x12 Gomoku as a kothkit state machine.

Seat 0 (the first of ``Setup.players``) plays black and moves first; the core
alternates which brain is seat 0 between the games of a pair, so each brain is
black in half of them.  The sequence of prompts is the course judge's:

    START 1 -> seat 0 (answers OK, "first" clock)
    START 2 -> seat 1 (answers OK, "first" clock)
    TURN    -> black; then, after every accepted move, the other seat gets
               PLACE X Y (a notice) followed by TURN,

and once the game is over, :meth:`ClassicMatch.final` sends the move that
ended it (a PLACE with no TURN after it) to the other seat, then ``END`` to both.
"""

from __future__ import annotations

from typing import Any

from kothkit.game import Clock, Match, Message, Outcome, Prompt, Rejected, Rule, Setup, Verdict, one_of

from . import codec
from .rules import BLACK, EMPTY, OPENINGS, SIZE, WHITE, Board, on_board


def colour_of(seat: int) -> int:
    return BLACK if seat == 0 else WHITE


def seat_of(colour: int) -> int:
    return 0 if colour == BLACK else 1


def _show(reply: Any) -> str:
    text = repr(reply)
    return text if len(text) <= 40 else text[:37] + "..."


class ClassicMatch(Match):
    RULES = {"opening": Rule("center4", one_of(*OPENINGS), "the stones on the board before the first move")}

    def __init__(self, setup: Setup) -> None:
        super().__init__(setup)
        if len(setup.players) != 2:
            raise ValueError(f"gomoku_classic12 is a two-player game, got {len(setup.players)} players")
        self.board = Board.opening(self.rules["opening"])
        #: Seats that have answered START with OK (seat 0 is asked first).
        self.ready = 0
        self.to_move = BLACK
        #: Accepted moves in order: (seat, row, col).
        self.moves: list[tuple[int, int, int]] = []
        #: True when the last accepted move ended the game (its PLACE is still owed to the other seat).
        self._ended_by_move = False

    # -- the state machine ---------------------------------------------------------
    def next(self) -> Prompt | Outcome:
        if self.outcome is not None:
            return self.outcome
        if self.ready < 2:
            return Prompt(seat=self.ready, payload=codec.start(colour_of(self.ready)), clock=Clock.FIRST)
        seat = seat_of(self.to_move)
        notices: tuple[Message, ...] = ()
        if self.moves:
            _, row, col = self.moves[-1]
            notices = (Message(seat, codec.place(row, col)),)
        return Prompt(seat=seat, payload=codec.turn(), notices=notices)

    def play(self, seat: int, reply: Any) -> Rejected | None:
        if no := self.not_due(seat):
            return no
        if type(reply) is not str:
            # Program bots always send a str; anything else is not even looked at (its repr may raise).
            return Rejected(Verdict.INVALID_REPLY, f"expected a line of text, got a {type(reply).__name__}")
        if self.ready < 2:
            if not codec.is_ok(reply):
                return Rejected(Verdict.INVALID_REPLY, f"expected OK after START, got {_show(reply)}")
            self.ready += 1
            return None
        cell = codec.parse_move(reply)
        if cell is None:
            return Rejected(Verdict.INVALID_REPLY, f"expected 'X Y' (row and column), got {_show(reply)}")
        row, col = cell
        if not on_board(row, col):
            return Rejected(Verdict.ILLEGAL_MOVE, f"({row}, {col}) is off the {SIZE}x{SIZE} board")
        if self.board.at(row, col) != EMPTY:
            return Rejected(Verdict.ILLEGAL_MOVE, f"({row}, {col}) is occupied")
        self.board.put(row, col, self.to_move)
        self.moves.append((seat, row, col))
        if self.board.makes_five(row, col):
            self.win(seat, f"five in a row ending at {row} {col}")
            self._ended_by_move = True
        elif self.board.full():
            self.draw("board full")
            self._ended_by_move = True
        else:
            self.to_move = WHITE if self.to_move == BLACK else BLACK
        return None

    def final(self, outcome: Outcome) -> tuple[Message, ...]:
        lines: list[Message] = []
        if self._ended_by_move and outcome == self.outcome:
            mover, row, col = self.moves[-1]
            lines.append(Message(1 - mover, codec.place(row, col)))
        for seat in (0, 1):
            if outcome.winner is None:
                code = codec.END_DRAW
            else:
                code = codec.END_WON if outcome.winner == seat else codec.END_LOST
            lines.append(Message(seat, codec.end(code)))
        return tuple(lines)

    # -- for people: drawn in views.py, so that a picture's edit changes no game's id --------------
    def picture(self) -> Any:
        from .views import picture

        return picture(self)

    def human(self, prompt: Prompt) -> Any:
        from .views import human

        return human(self, prompt)

    # -- conformance helpers -----------------------------------------------------------
    def legal_replies(self) -> list[Any]:
        if self.outcome is not None:
            return []
        if self.ready < 2:
            return ["OK"]
        return [codec.move(r, c) for r, c in self.board.empty_cells()]

    def render(self) -> str:
        """The board as text: X black, O white, the last move in brackets."""
        last = self.moves[-1][1:] if self.moves else None
        marks = {EMPTY: ".", BLACK: "X", WHITE: "O"}
        header = ("    " + "".join(f"{c:>2} " for c in range(SIZE))).rstrip()
        rows = [header]
        for r in range(SIZE):
            cells = []
            for c in range(SIZE):
                mark = marks[self.board.at(r, c)]
                cells.append(f"[{mark}]" if (r, c) == last else f" {mark} ")
            rows.append(f"{r:>3} " + "".join(cells).rstrip())
        players = self.setup.players
        rows.append(f"X black: {players[0]}   O white: {players[1]}   moves: {len(self.moves)}")
        rows.append("a move X Y is row X (down the left), column Y (across the top); [ ] the latest move")
        return "\n".join(rows)
