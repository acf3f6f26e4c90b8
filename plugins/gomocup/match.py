"""The Gomocup match: Piskvork's protocol as a pure state machine.

Seat 0 plays black unless a Swap2 opening gives black to seat 1.  The prompts, as Piskvork's
manager sends them (every line a command; a reply is one line; ``MESSAGE``/``DEBUG`` lines are
the core's asides, whatever their case):

    START n                 -> each seat in turn (answer OK; ERROR refuses the board), "start" clock
    ABOUT                   -> each seat after its OK (answer name="..", version="..", ... or UNKNOWN), "start" clock
    INFO timeout_turn ms, INFO timeout_match ms, INFO max_memory bytes, INFO game_type 1,
    INFO rule r             -> before a seat's first move prompt (notices)
    INFO time_left ms       -> before every move prompt, in a game with a time budget
    BEGIN                   -> black's first move on an empty board
    BOARD, x,y,f ..., DONE  -> a seat's first move on a board with stones (f: 1 own, 2 the opponent's)
    TURN x,y                -> every later move, with the opponent's last move
    SWAP2BOARD, x,y ..., DONE -> Gomocup's Swap2 opening (0, 3 or 5 stones, colours alternating
                               from black): 3 stones back; SWAP, 1 or 2 stones back; SWAP or 1 stone back
    END                     -> both seats once the game is over

Colours alternate from black all along, the opening's stones too, so white moves after a Swap2
opening of three or five stones.  The rules are ``INFO rule``'s: 0 five or more wins, 1 exactly
five, 4 renju (black's fouls lose, :func:`kothkit_gomocup.rules.foul`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from kothkit.game import Match, Message, Outcome, Prompt, Rejected, Rule, Setup, Verdict, one_of

from . import codec
from .rules import BLACK, EMPTY, FREESTYLE, RENJU, WHITE, Board, foul, wins

RULE_NAMES = {0: "freestyle (five or more)", 1: "exactly five", 4: "renju"}
#: At most this many sampled replies from legal_replies().
SAMPLE = 200


def _show(reply: Any) -> str:
    text = repr(reply)
    return text if len(text) <= 60 else text[:57] + "..."


def parse_position(text: str, size: int) -> list[tuple[int, int]]:
    """The stones of a ``position`` setting (``"x,y x,y ..."``, colours alternating from black);
    a ValueError says what is wrong."""
    cells: list[tuple[int, int]] = []
    for part in text.replace(";", " ").split():
        cell = codec.move(part)
        if cell is None:
            raise ValueError(f"rules setting position: {part[:20]!r} is not x,y")
        if not (0 <= cell[0] < size and 0 <= cell[1] < size):
            raise ValueError(f"rules setting position: {cell[0]},{cell[1]} is off the {size}x{size} board")
        if cell in cells:
            raise ValueError(f"rules setting position: {cell[0]},{cell[1]} is given twice")
        cells.append(cell)
    return cells


def random_opening(seed: int, rules: Mapping[str, Any]) -> str:
    """A balanced-looking opening drawn from ``seed``: three stones (black, white, black) in the
    board's central 5x5, white's beside black's first, so that neither side starts with a line."""
    size = rules.get("size", 15) if isinstance(rules.get("size"), int) else 15
    rng = random.Random(seed)
    c = size // 2
    centre = [(x, y) for y in range(c - 2, c + 3) for x in range(c - 2, c + 3)]
    bx, by = rng.choice(centre)
    white = [(bx + dx, by + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx or dy)]
    wx, wy = rng.choice(white)
    rest = [p for p in centre if p not in ((bx, by), (wx, wy)) and max(abs(p[0] - bx), abs(p[1] - by)) >= 2]
    x3, y3 = rng.choice(rest)
    return f"{bx},{by} {wx},{wy} {x3},{y3}"


def _position_check(value: Any) -> str | None:
    if not isinstance(value, str) or len(value) > 2000:
        return f"must be a text of x,y moves, got {value!r:.60}"
    return None


class GomocupMatch(Match):
    RULES = {
        "size": Rule(15, one_of(15, 20), "the board's side (Gomocup plays 15 and 20)"),
        "rule": Rule(0, one_of(0, 1, 4), "Piskvork's INFO rule: 0 five or more, 1 exactly five, 4 renju"),
        "opening": Rule("free", one_of("free", "swap2"), "free, or Gomocup's Swap2 through SWAP2BOARD"),
        "position": Rule("", _position_check, "stones on the board before the first move: x,y x,y ..., "
                                              "colours alternating from black"),
        "about": Rule(True, one_of(True, False), "ask each engine ABOUT (its name, version and author)"),
    }

    @classmethod
    def check_rules(cls, rules: Mapping[str, Any]) -> Mapping[str, Any]:
        merged = super().check_rules(rules)
        stones = parse_position(merged["position"], merged["size"])
        if merged["opening"] == "swap2" and (stones or merged["rule"] == RENJU):
            raise ValueError("rules setting opening 'swap2' plays on an empty board under rule 0 or 1")
        board = Board(merged["size"])
        for i, (x, y) in enumerate(stones):
            board.put(x, y, BLACK if i % 2 == 0 else WHITE)
            if wins(board, x, y, BLACK if i % 2 == 0 else WHITE, FREESTYLE):
                raise ValueError(f"rules setting position: {x},{y} makes five before the game starts")
        return merged

    def __init__(self, setup: Setup) -> None:
        super().__init__(setup)
        if len(setup.players) != 2:
            raise ValueError(f"gomocup is a two-player game, got {len(setup.players)} players")
        self.size: int = self.rules["size"]
        self.rule: int = self.rules["rule"]
        self.board = Board(self.size)
        for i, (x, y) in enumerate(parse_position(self.rules["position"], self.size)):
            self.board.put(x, y, BLACK if i % 2 == 0 else WHITE)
        self.opening_stones = len(self.board.stones)
        #: "start" (START and ABOUT, seat by seat), "A", "B", "C" (Swap2), then "game".
        self.phase = "start"
        #: Replies to the start-up prompts so far (START, then ABOUT, of seat 0 then seat 1).
        self.started = 0
        self.about: list[dict[str, str]] = [{}, {}]
        #: The seat that plays black (None while a Swap2 opening decides it).
        self.black_seat: int | None = None if self.rules["opening"] == "swap2" else 0
        #: Seats that had their first prompt after the start-up (its INFO lines, and a BOARD).
        self.told = [False, False]
        #: Seats that have been shown the board in the game phase (then TURN x,y).
        self.shown = [False, False]
        #: The stone that ended the game (for pictures).
        self.last_line: list[tuple[int, int]] = []

    # -- whose turn, what is asked --------------------------------------------------------------
    def _start_steps(self) -> list[tuple[int, str]]:
        steps: list[tuple[int, str]] = []
        for seat in (0, 1):
            steps.append((seat, "START"))
            if self.rules["about"]:
                steps.append((seat, "ABOUT"))
        return steps

    def colour_to_move(self) -> int:
        return BLACK if len(self.board.stones) % 2 == 0 else WHITE

    def seat_of(self, colour: int) -> int:
        assert self.black_seat is not None
        return self.black_seat if colour == BLACK else 1 - self.black_seat

    def to_move(self) -> int:
        if self.phase == "start":
            return self._start_steps()[self.started][0]
        if self.phase in ("A", "C"):
            return 0
        if self.phase == "B":
            return 1
        return self.seat_of(self.colour_to_move())

    def _infos(self, seat: int) -> list[Message]:
        lines = []
        if not self.told[seat]:
            lim = self.setup.limits
            if lim is not None:
                lines += [f"INFO timeout_turn {round(lim.move_time * 1000)}",
                          f"INFO timeout_match {round((lim.game_time or 0) * 1000)}",
                          f"INFO max_memory {(lim.memory_mb or 0) * 1024 * 1024}"]
            lines += ["INFO game_type 1", f"INFO rule {self.rule}"]
        clock = self.setup.clock
        if clock is not None and clock.budget is not None:
            left = clock.left(seat)
            lines.append(f"INFO time_left {round((left or 0.0) * 1000)}")
        return [Message(seat, line) for line in lines]

    def next(self) -> Prompt | Outcome:
        if self.outcome is not None:
            return self.outcome
        if self.phase == "start":
            seat, what = self._start_steps()[self.started]
            payload = f"START {self.size}" if what == "START" else "ABOUT"
            return Prompt(seat, payload, clock="start")
        seat = self.to_move()
        notices = self._infos(seat)
        if self.phase != "game":
            notices.append(Message(seat, "SWAP2BOARD"))
            notices += [Message(seat, f"{x},{y}") for x, y, _c in self.board.stones]
            return Prompt(seat, "DONE", tuple(notices))
        if self.shown[seat]:
            x, y, _c = self.board.stones[-1]
            return Prompt(seat, f"TURN {x},{y}", tuple(notices))
        if not self.board.stones:
            return Prompt(seat, "BEGIN", tuple(notices))
        mine = BLACK if seat == self.black_seat else WHITE
        notices.append(Message(seat, "BOARD"))
        notices += [Message(seat, codec.board_line(x, y, 1 if c == mine else 2)) for x, y, c in self.board.stones]
        return Prompt(seat, "DONE", tuple(notices))

    # -- judging replies ------------------------------------------------------------------------
    def play(self, seat: int, reply: Any) -> Rejected | None:
        if no := self.not_due(seat):
            return no
        if type(reply) is not str:
            return Rejected(Verdict.INVALID_REPLY, f"expected a line of text, got a {type(reply).__name__}")
        if self.phase == "start":
            return self._start_reply(seat, reply)
        self.told[seat] = True
        if self.phase != "game":
            return self._swap2_reply(seat, reply)
        said = codec.refusal(reply)
        if said is not None:
            return Rejected(Verdict.INVALID_REPLY, f"answered with {_show(said)} where a move x,y was due")
        cell = codec.move(reply)
        if cell is None:
            return Rejected(Verdict.INVALID_REPLY, f"expected a move x,y, got {_show(reply)}")
        if (problem := self._bad_cell(cell)) is not None:
            return problem
        self.shown[seat] = True
        self._place(seat, *cell)
        return None

    def _start_reply(self, seat: int, reply: str) -> Rejected | None:
        what = self._start_steps()[self.started][1]
        if what == "START":
            if not codec.is_ok(reply):
                said = codec.refusal(reply)
                if said is not None:
                    return Rejected(Verdict.INVALID_REPLY, f"refused START {self.size}: {_show(said)}")
                return Rejected(Verdict.INVALID_REPLY, f"expected OK after START {self.size}, got {_show(reply)}")
        else:
            about = codec.about(reply)
            if not about and codec.refusal(reply) is None:
                return Rejected(Verdict.INVALID_REPLY, f'expected name="...", version="...", ... (or UNKNOWN) after '
                                                       f"ABOUT, got {_show(reply)}")
            self.about[seat] = about
        self.started += 1
        if self.started == len(self._start_steps()):
            self.phase = "A" if self.rules["opening"] == "swap2" else "game"
        return None

    def _bad_cell(self, cell: tuple[int, int], taken: tuple[tuple[int, int], ...] = ()) -> Rejected | None:
        x, y = cell
        if not self.board.on_board(x, y):
            return Rejected(Verdict.ILLEGAL_MOVE, f"{x},{y} is off the {self.size}x{self.size} board")
        if self.board.at(x, y) != EMPTY or cell in taken:
            return Rejected(Verdict.ILLEGAL_MOVE, f"{x},{y} is occupied")
        return None

    def _cells(self, reply: str, counts: tuple[int, ...]) -> list[tuple[int, int]] | Rejected:
        cells = codec.moves(reply)
        if cells is None or len(cells) not in counts:
            wanted = " or ".join(f"{n} stone{'s' if n > 1 else ''}" for n in counts)
            return Rejected(Verdict.INVALID_REPLY, f"expected {wanted} (x,y separated by spaces), got {_show(reply)}")
        for i, cell in enumerate(cells):
            if (problem := self._bad_cell(cell, tuple(cells[:i]))) is not None:
                return problem
        return cells

    def _put_all(self, cells: list[tuple[int, int]]) -> None:
        for x, y in cells:
            self.board.put(x, y, self.colour_to_move())

    def _swap2_reply(self, seat: int, reply: str) -> Rejected | None:
        if self.phase == "A":  # three stones: black, white, black
            cells = self._cells(reply, (3,))
            if isinstance(cells, Rejected):
                return cells
            self._put_all(cells)
            self.phase = "B"
            return None
        if codec.is_swap(reply):
            # The one asked takes black; the other plays white's move next.
            self.black_seat = seat
            self.phase = "game"
            return None
        cells = self._cells(reply, (1, 2) if self.phase == "B" else (1,))
        if isinstance(cells, Rejected):
            return cells
        if len(cells) == 2:  # B adds a white and a black stone: A chooses its colour
            self._put_all(cells)
            self.phase = "C"
            return None
        # One stone: the one asked plays white, and this is white's move.
        self.black_seat = 1 - seat
        self.phase = "game"
        self.shown[seat] = True
        self._place(seat, *cells[0])
        return None

    def _place(self, seat: int, x: int, y: int) -> None:
        colour = self.colour_to_move()
        self.board.put(x, y, colour)
        if wins(self.board, x, y, colour, self.rule):
            self.last_line = self.board.line_through(x, y, colour)
            self.win(seat, f"five in a row at {x},{y}")
        elif self.rule == RENJU and colour == BLACK and (why := foul(self.board, x, y)) is not None:
            self.win(1 - seat, f"black's {x},{y} is {why}: a foul in renju")
        elif self.board.full():
            self.draw("board full")

    def final(self, outcome: Outcome) -> tuple[Message, ...]:
        """END to both engines, as Piskvork ends a match (the result is not told)."""
        return (Message(0, "END"), Message(1, "END"))

    # -- for people ------------------------------------------------------------------------------
    def engine(self, seat: int) -> str:
        """The engine in ``seat`` as its ABOUT says: name version by author (or its bot's name)."""
        about = self.about[seat]
        name = about.get("name") or self.setup.players[seat]
        parts = [name] + ([about["version"]] if about.get("version") else [])
        if about.get("author"):
            parts.append(f"by {about['author']}")
        return " ".join(parts)

    def render(self) -> str:
        marks = {EMPTY: ".", BLACK: "X", WHITE: "O"}
        last = self.board.stones[-1][:2] if self.board.stones else None
        rows = ["    " + "".join(f"{x:>2} " for x in range(self.size)).rstrip()]
        for y in range(self.size):
            cells = []
            for x in range(self.size):
                mark = marks[self.board.at(x, y)]
                cells.append(f"[{mark}]" if (x, y) == last else f" {mark} ")
            rows.append(f"{y:>3} " + "".join(cells).rstrip())
        if self.black_seat is None:
            rows.append(f"Swap2 opening ({self.phase}): {self.engine(0)} places, {self.engine(1)} chooses")
        else:
            rows.append(f"X black: {self.engine(self.black_seat)}   O white: {self.engine(1 - self.black_seat)}   "
                        f"stones: {len(self.board.stones)}   rule: {RULE_NAMES[self.rule]}")
        rows.append("a move x,y is x across (the top), y down (the left), from 0; [ ] the latest stone")
        return "\n".join(rows)

    def picture(self) -> Any:
        from .views import picture

        return picture(self)

    # -- conformance helpers -------------------------------------------------------------------
    def legal_replies(self) -> list[Any]:
        if self.outcome is not None:
            return []
        if self.phase == "start":
            what = self._start_steps()[self.started][1]
            return ["OK"] if what == "START" else ['name="kit", version="1", author="kothkit"', "UNKNOWN"]
        empty = self.board.empty_cells()
        rng = random.Random(self.setup.seed * 7919 + len(self.board.stones))
        if self.phase == "A":
            return [" ".join(f"{x},{y}" for x, y in rng.sample(empty, 3)) for _ in range(20)]
        if self.phase in ("B", "C"):
            ones = [f"{x},{y}" for x, y in rng.sample(empty, 10)]
            twos = ([" ".join(f"{x},{y}" for x, y in rng.sample(empty, 2)) for _ in range(10)]
                    if self.phase == "B" else [])
            return ["SWAP", *ones, *twos]
        cells = [f"{x},{y}" for x, y in empty]
        return cells if len(cells) <= SAMPLE else rng.sample(cells, SAMPLE)
