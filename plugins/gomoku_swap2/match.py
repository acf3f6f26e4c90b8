"""The Swap2 match: the opening (A, B and maybe C prompts), then the game phase, as a pure state machine.

Seat 0 is the opener (player A), seat 1 the other player (B).  The phases:

* ``A``: seat 0 places two black stones and one white.
* ``B``: seat 1 answers ``B`` (it plays black), ``W (x,y)`` (it places a white
  stone and plays white) or ``(x,y) (x,y)`` (one black, one white; seat 0 then
  picks the colour in phase ``C``).
* ``game``: one stone each, the black player first, until five or more in a
  row (a win) or a full board (a tie).
"""

from __future__ import annotations

import random
from typing import Any

from kothkit.game import Match, Message, Outcome, Prompt, Rejected, Rule, Setup, Verdict, one_of

from kothkit_gomoku_swap2 import codec
from kothkit_gomoku_swap2.codec import CELL_TEXT, Ask, Cell, Exit, format_cell, format_entries, format_reply, read_reply
from kothkit_gomoku_swap2.rules import BLACK, SIZE, WHITE, Board, Stone, on_board, winning_line

FIVE = "five in a row"
FULL = "board full"
#: Rules a challenge file may override: the order stones are listed in BOARD.
#: "placement" (the issue's rule) or "sorted" (by x then y, as the seed's examples show).
BOARD_ORDERS = ("placement", "sorted")
#: At most this many sampled replies from legal_replies() when the true set is huge.
SAMPLE = 150
_new = tuple.__new__
#: A Prompt's fields after seat and payload, as their defaults give them.
_PROMPT_REST = Prompt(0, None)[2:]


class Swap2Match(Match):
    codec = codec  # the lines on the wire: codec.encode (sped up below for the usual prompt) and codec.decode
    RULES = {"board_order": Rule("placement", one_of(*BOARD_ORDERS), "the order of BOARD's stones")}

    def __init__(self, setup: Setup) -> None:
        super().__init__(setup)
        self.sorted_board = self.rules["board_order"] == "sorted"
        self.board = Board()
        #: "A", "B", "C" or "game".
        self.phase = "A"
        #: The seat that plays black once the opening is over.
        self.black_seat: int | None = None
        #: Stones placed in the game phase (the N of the "N BOARD" prompt).
        self.moves = 0
        self.last_line: list[Cell] | None = None
        # The board is re-sent whole every move: its text is kept and extended by the new stones
        # (placement order), for the board it was made of; the last Ask made, and its board.
        self._text = ""
        self._text_board: Board | None = None
        self._text_stones = 0
        self._ask: Ask | None = None
        self._ask_board: Board | None = None

    # -- whose turn, what is asked ---------------------------------------------
    def to_move(self) -> int:
        if self.phase in ("A", "C"):
            return 0
        if self.phase == "B":
            return 1
        assert self.black_seat is not None
        return self.black_seat if self.moves % 2 == 0 else 1 - self.black_seat

    def color_of(self, seat: int) -> str | None:
        if self.black_seat is None:
            return None
        return BLACK if seat == self.black_seat else WHITE

    def listed_stones(self) -> tuple[Stone, ...]:
        if self.sorted_board:
            return tuple(sorted(self.board.stones, key=lambda s: (s.x, s.y)))
        return tuple(self.board.stones)

    def _kind(self) -> str:
        return "N" if self.phase == "game" else self.phase

    def next(self) -> Prompt | Outcome:
        if self.outcome is not None:
            return self.outcome
        if self.phase == "game":
            black = self.black_seat
            assert black is not None
            seat = black if self.moves % 2 == 0 else 1 - black
            tag = str(self.moves)
        else:
            seat, tag = self.to_move(), self.phase
        # Ask(...) and Prompt(seat, ask) without their named tuples' __new__ calls: one of each a move.
        self._ask = ask = _new(Ask, (tag, self.listed_stones()))
        self._ask_board = self.board
        return _new(Prompt, (seat, ask, *_PROMPT_REST))

    def encode(self, payload: Any) -> str:
        """``codec.encode(payload)``, written faster for the prompt just asked (hot path)."""
        board = self.board
        # The prompt just asked, for the board as it is (stones are only ever added): its board
        # from the kept text.
        if (payload is self._ask and self._ask_board is board and not self.sorted_board
                and len(payload.stones) == len(board.stones)):
            return f"{payload.tag} [{self._board_text(board)}]"
        return codec.encode(payload)

    def _board_text(self, board: Board) -> str:
        """The BOARD field's text (without brackets) of ``board``, in placement order."""
        stones = board.stones
        n = self._text_stones
        if n != len(stones) or self._text_board is not board:
            if n > len(stones) or self._text_board is not board:
                self._text, n = "", 0
            more = format_entries(stones[n:])
            self._text = f"{self._text},{more}" if self._text else more
            self._text_board, self._text_stones = board, len(stones)
        return self._text

    # -- judging a reply ---------------------------------------------------------
    def _problem(self, cells: list[Cell]) -> str | None:
        seen = set()
        for c in cells:
            if not on_board(*c):
                return f"{format_cell(c)} is off the board (x and y are 0..{SIZE - 1})"
            taken = self.board.at(*c)
            if taken is not None:
                return f"{format_cell(c)} is already taken by {'black' if taken == BLACK else 'white'}"
            if c in seen:
                return f"{format_cell(c)} is given twice"
            seen.add(c)
        return None

    def play(self, seat: int, reply: Any) -> Rejected | None:
        if self.phase == "game" and type(reply) is str and self.outcome is None:
            # The usual move, "(x,y)" on the board as written canonically by the seat to move, is
            # looked up (hot path); anything else (whitespace, other digits, a bad reply, a reply
            # out of turn) is judged below, after the standard guard.
            black = self.black_seat
            cell = CELL_TEXT.get(reply)
            if (cell is not None and seat == (black if self.moves % 2 == 0 else 1 - black)
                    and cell not in self.board.cells):
                self._ask = None
                self._stone(seat, *cell)
                return None
        if no := self.not_due(seat):
            return no
        tokens = read_reply(reply, self._kind())
        if isinstance(tokens, str):
            return Rejected(Verdict.INVALID_REPLY, tokens)
        cells = [t for t in tokens if isinstance(t, tuple)]
        problem = self._problem(cells)
        if problem is not None:
            return Rejected(Verdict.ILLEGAL_MOVE, problem)
        self._apply(seat, tokens, cells)
        return None

    def _apply(self, seat: int, tokens: list, cells: list[Cell]) -> None:
        self._ask = None
        if self.phase == "A":
            (b1, b2, w) = cells
            self.board.place(*b1, BLACK)
            self.board.place(*b2, BLACK)
            self.board.place(*w, WHITE)
            self.phase = "B"
        elif self.phase == "B":
            if tokens[0] == BLACK:
                self.black_seat = 1
                self.phase = "game"
            elif tokens[0] == WHITE:
                self.board.place(*cells[0], WHITE)
                self.black_seat = 0
                self.phase = "game"
            else:
                self.board.place(*cells[0], BLACK)
                self.board.place(*cells[1], WHITE)
                self.phase = "C"
        elif self.phase == "C":
            self.black_seat = 0 if tokens[0] == BLACK else 1
            self.phase = "game"
        else:
            self._stone(seat, *cells[0])

    def _stone(self, seat: int, x: int, y: int) -> None:
        """A stone of the game phase, on an empty cell of the board."""
        board = self.board
        board.place(x, y, BLACK if seat == self.black_seat else WHITE)
        self.moves += 1
        line = winning_line(board, x, y)
        if line is not None:
            self.last_line = line
            self.win(seat, FIVE)
        elif board.full():
            self.draw(FULL)

    # -- the end -----------------------------------------------------------------
    def final(self, outcome: Outcome) -> tuple[Message, ...]:
        name = None if outcome.winner is None else self.setup.players[outcome.winner]
        return tuple(Message(seat, Exit(name)) for seat in range(len(self.setup.players)))

    # -- for people: drawn in views.py, so that a picture's edit changes no game's id --------------
    def picture(self) -> Any:
        from kothkit_gomoku_swap2.views import picture

        return picture(self)

    def human(self, prompt: Prompt) -> Any:
        from kothkit_gomoku_swap2.views import human

        return human(self, prompt)

    # -- conformance helpers -----------------------------------------------------
    def legal_replies(self) -> list[str]:
        """Legal replies to the current prompt; the huge opening sets are sampled from the setup seed."""
        if self.outcome is not None:
            return []
        empty = self.board.empty_cells()
        rng = random.Random(f"{self.setup.seed}:{self.phase}:{len(self.board.stones)}")
        if self.phase == "A":
            return [format_reply(rng.sample(empty, 3)) for _ in range(SAMPLE)]
        if self.phase == "B":
            whites = [format_reply([WHITE, c]) for c in rng.sample(empty, SAMPLE // 2)]
            pairs = [format_reply(rng.sample(empty, 2)) for _ in range(SAMPLE // 2)]
            return [BLACK, *whites, *pairs]
        if self.phase == "C":
            return [BLACK, WHITE]
        return [format_cell(c) for c in empty]

    def render(self) -> str:
        """The board as text: X black, O white, the latest reply's stones in lower case, x across and y down."""
        stones = self.board.stones
        latest = {(s.x, s.y) for s in stones[len(stones) - _latest(self):]}
        rows = ["    " + " ".join(f"{x:>2}" for x in range(SIZE))]
        for y in range(SIZE):
            cells = []
            for x in range(SIZE):
                c = self.board.at(x, y)
                mark = "." if c is None else ("X" if c == BLACK else "O")
                if (x, y) in latest:
                    mark = mark.lower()
                cells.append(f"{mark:>2}")
            rows.append(f"{y:>2}  " + " ".join(cells))
        names = self.setup.players
        if self.black_seat is None:
            status = f"opening, phase {self.phase}"
        else:
            status = f"black: {names[self.black_seat]}, white: {names[1 - self.black_seat]}, game move {self.moves}"
        if self.outcome is not None:
            who = "tie" if self.outcome.winner is None else f"{names[self.outcome.winner]} wins"
            status += f"; {who} ({self.outcome.reason})"
        rows.append(status)
        rows.append(LEGEND)
        return "\n".join(rows)


def _latest(match: Swap2Match) -> int:
    """How many stones the latest accepted reply placed (worked out from the phase: the match
    keeps no count of its own, as nothing but this picture needs one)."""
    if match.phase == "B":
        return 3  # the opening's three stones
    if match.phase == "C":
        return 2  # B's black and white stone
    if match.phase == "game" and match.moves == 0:
        return 1 if len(match.board.stones) == 4 else 0  # B's "W (x,y)"; else a colour was chosen
    return 1 if match.phase == "game" else 0


LEGEND = "x is the column (across), y the row (down); X black, O white; lower case: the stones of the latest reply"
