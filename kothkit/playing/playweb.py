"""The person's seat on a web page: ``kothkit play --web`` and the Play page of ``kothkit serve``.

A :class:`WebSeat` is the terminal's seat answered from a page: it keeps the page's state (the
moves, the seat's board as a picture of :mod:`kothkit.picture` with what each cell's click types,
the question, the last mistake explained, the result) for the page to poll as JSON, and takes the
page's entries from a queue, read as the terminal reads them.  The game runs in its own thread
(the command's, or one of the site's); the page (``kothkit/serve/templates/play.html`` with
``static/play.js``, served by :mod:`kothkit.serve.playpage` and the site) only fills the person's
entries in.  A seat that waits longer than its ``idle`` seconds for an entry abandons the game.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TextIO

from kothkit.game import GameInfo, Match, Prompt
from kothkit.human import read_entry, turn_of
from kothkit.messages import say
from kothkit.picture import Grid, PictureError, panels_of, picture_of, to_json
from kothkit.playing.play import Abandoned, Terminal, is_handshake

#: Lines of the moves' log a page shows.
LOG_LINES = 200
#: Bytes of an entry the server reads.
MAX_ENTRY = 4096
#: The page's state that is words for the person (translated by ``WebSeat.words``).
_WORDS = ("asks", "choices", "message", "result")


class WebSeat(Terminal):
    """The person's seat, answered from the page; what the terminal would print goes to the log too."""

    def __init__(self, info: GameInfo, names: tuple[str, ...], me: int, hidden: bool,
                 stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout, start: Match | None = None):
        super().__init__(info, names, me, hidden, stdin, stdout, start=start)
        self.lock = threading.Lock()
        #: The page's entries; None: the page was closed (the game is abandoned).
        self.entries: queue.Queue[str | None] = queue.Queue()
        self.log: list[str] = []
        self.state: dict[str, Any] = {"seq": 0, "waiting": False, "over": False, "log": []}
        #: Seconds the seat waits for an entry before it abandons the game (None: for ever).
        self.idle: float | None = None
        #: Set when the game has ended one way or another (the page then stops asking).
        self.ended = threading.Event()
        #: The page's words: a line of the game's or the core's (a question, a mistake explained,
        #: the result) as the page shows it (the site's: in the person's language).
        self.words: Callable[[str], str] = str
        #: Names as the page shows them: the game's texts (a board's title, the text board) name
        #: the seats by their names in the record (the site's: a login, a brain's public id), which
        #: the page says as "you", a nickname or "your brain".
        self.shown: dict[str, str] = {}

    def note(self, text: str) -> None:
        """A line for the terminal only (the page has its own words for it)."""
        Terminal.say(self, text)

    def board(self, text: str) -> None:
        """Boards go to the terminal; the page draws its own (its log holds the moves only)."""
        if text and text != self.last_board:
            Terminal.say(self, text)
            self.last_board = text

    def event(self, kind: str, seat: int, text: str, ms: float | None) -> None:
        """The terminal's lines, and the person's own moves (the page's list holds both sides')."""
        if kind == "reply" and seat == self.me:
            if self.match is not None and not is_handshake(self.info, self.match, seat):
                with self.lock:  # (the page only: the terminal echoes what the person typed)
                    self.log = (self.log + [self._word(say("{bot} played {move}", bot="you", move=text))])[-LOG_LINES:]
                    self._set()
            return
        super().event(kind, seat, text, ms)

    def say(self, text: str) -> None:
        super().say(text)
        with self.lock:
            lines = [self._word(line) for line in text.splitlines() if line.strip()]
            self.log = (self.log + lines)[-LOG_LINES:]
            self._set()

    def renamed(self, text: str) -> str:
        for name, shown in self.shown.items():
            text = text.replace(name, shown)
        return text

    def _word(self, text: str) -> str:
        return self.words(self.renamed(text)) if self.words is not str else self.renamed(text)

    def _set(self, **changes: Any) -> None:
        """Change the page's state (the lock held)."""
        if self.words is not str or self.shown:
            self._translate(changes)
        self.state = {**self.state, **changes, "log": self.log, "seq": self.state["seq"] + 1}

    def _translate(self, changes: dict[str, Any]) -> None:
        """The state's words through :attr:`words`: the texts, the buttons' labels, the boards' titles."""
        if isinstance(changes.get("board"), str):
            changes["board"] = self.renamed(changes["board"])
        for key in _WORDS:
            text = changes.get(key)
            if text and isinstance(text, str):
                changes[key] = "\n".join(self._word(line) for line in text.split("\n"))
        if changes.get("buttons"):
            changes["buttons"] = [[self._word(b[0]), *b[1:]] for b in changes["buttons"]]
        if changes.get("picture"):
            changes["picture"] = [{**p, "title": self._word(p["title"])} if p.get("title") else p
                                  for p in changes["picture"]]

    def publish(self, **changes: Any) -> None:
        with self.lock:
            self._set(**changes)

    def __call__(self, match: Match, prompt: Prompt) -> Any:
        self.match = match
        turn = turn_of(self.info, match, prompt)
        if turn.auto is not None:
            return turn.auto
        try:
            panels = panels_of(turn.picture) or []
        except PictureError as e:  # said, and the text board shown instead
            self.say(say("no picture: {game}'s kothkit_human hook's Turn.picture {problem}", game=self.info.name,
                         problem=str(e)))
            panels = []
        # Clicks go to the first Grid of the picture (the seat's own board; others are shown beside it).
        grid = next((p for p in panels if isinstance(p, Grid)), None)
        cells = None
        if grid is not None and turn.cell is not None and turn.clicks > 0:
            cells = [[str(turn.cell(r, c)) for c in range(len(grid.rows[r]))] for r in range(len(grid.rows))]
        # ``turn`` numbers the questions: the page starts a new entry when it changes.
        shown = dict(waiting=True, turn=self.state.get("turn", 0) + 1, asks=turn.asks, choices=turn.choices,
                     message="", board=turn.board,
                     picture=[to_json(p) for p in panels] or None,
                     clickable=panels.index(grid) if grid is not None else -1, cells=cells, clicks=turn.clicks,
                     buttons=[[str(label), str(text), int(n)] for label, text, n in turn.buttons])
        self.publish(**shown)
        asked = time.monotonic()
        while True:
            try:
                text = self.entries.get(timeout=0.5)  # a timeout, so that Ctrl-C reaches the command
            except queue.Empty:
                if self.idle is not None and time.monotonic() - asked > self.idle:
                    raise Abandoned() from None
                continue
            if text is None:
                raise Abandoned()
            asked = time.monotonic()
            reply, problem = read_entry(turn, match, prompt.seat, text)
            if problem is None:
                self.publish(waiting=False, message="", asks="", buttons=[], cells=None)
                return reply
            self.publish(message=problem)

    def finish(self, info: GameInfo, result: str) -> None:
        """The page's last state: the whole board (the game is over) and the result."""
        try:
            picture = picture_of(info, self.match) if self.match is not None else None
            problem = ""
        except PictureError as e:
            picture, problem = None, f"no picture: {e}"
            self.say(problem)
        board = self.match.render() if self.match is not None and info.renders else ""
        self.publish(waiting=False, over=True, result=result, picture=picture, board=board, cells=None, buttons=[],
                     asks="", message=problem)
        self.ended.set()

    def abandoned(self, why: str) -> None:
        """The page's last state when the game was left unfinished (nothing is stored)."""
        self.publish(waiting=False, over=True, abandoned=True, result=why, cells=None, buttons=[], asks="")
        self.ended.set()


def linger(server: Any, again: threading.Event) -> bool:
    """Keep the page up (showing the result) until the person asks for a new game on it (True),
    or Ctrl-C (False: the page's server is shut down)."""
    print("the page stays up to show the result: New game on it plays another; Ctrl-C to stop", file=sys.stdout,
          flush=True)
    try:
        while not again.wait(0.5):  # (a timeout, so that Ctrl-C reaches the command)
            pass
    except KeyboardInterrupt:
        server.shutdown()
        return False
    again.clear()
    return True
