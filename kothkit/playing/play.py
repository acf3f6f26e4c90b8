"""``kothkit play``: a person plays one game against a bot, in the terminal.

The person is a seat of an ordinary game: the referee plays it as it plays any
game (the bot under its usual limits and containment), but asks the person's
seat through :mod:`kothkit.human` instead of a bot, with no time limit.  The
board is drawn after every move; an entry that does not parse, or that the game
rejects, is explained with the legal choices and asked again.  The game is
stored in a journal like a tournament's (default ``.kothkit/GAME-play.sqlite``,
apart from the game's tournament journal, whose last run it would otherwise
become): ``kothkit show``, ``export`` and ``verify`` work on it.  Each game is
slot ``k`` of the pair (the person, the bot) under the play seed, the first
slot not yet in the journal, so its id and seed are what ``verify`` expects of
a round robin's game; the person's seat is recorded with the content hash
:data:`kothkit.human.HUMAN_HASH`, and ``verify`` replays its recorded replies.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from kothkit.botspec import BotKind
from kothkit.game import GameInfo, Match, Prompt
from kothkit.human import read_entry, turn_of
from kothkit.messages import say

if TYPE_CHECKING:
    from kothkit.bots.folders import BotSpec
    from kothkit.limits import Limits
    from kothkit.store.records import GameRecord, GameTask


class Abandoned(Exception):
    """The person left the game (end of input, or ``quit``): nothing is stored."""


def is_handshake(info: GameInfo, match: Match, seat: int) -> bool:
    """Whether ``match``'s prompt now, to ``seat``, is a handshake (classic12's START -> OK): one the
    game's play by a person answers by itself (``Turn.auto``).  A bot's reply to it is no move."""
    step = match.next()
    if not isinstance(step, Prompt) or step.seat != seat:
        return False
    try:
        return turn_of(info, match, step).auto is not None
    except Exception:  # noqa: BLE001 - a plugin's hook failing here only costs the line a move would get
        return False


def hidden_information(match: Match) -> bool:
    """Whether a seat must not see all of the game (the match says what it hides from a seat)."""
    return type(match).hidden_from is not Match.hidden_from


class Terminal:
    """The person's seat and the screen: draws boards and moves, reads entries."""

    def __init__(self, info: GameInfo, names: tuple[str, ...], me: int, hidden: bool,
                 stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout, start: Match | None = None):
        self.info, self.names, self.me, self.hidden = info, names, me, hidden
        self.stdin, self.stdout = stdin, stdout
        self.last_board: str | None = None
        #: The game being played, from the person's first turn on.
        self.match: Match | None = None
        #: The game as it starts (the same setup), until then: a bot asked before the person is
        #: asked at the start, where this match stands.
        self.start = start

    def say(self, text: str) -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def note(self, text: str) -> None:
        """A line about the command rather than the game (a web seat shows it in the terminal only)."""
        self.say(text)

    def board(self, text: str) -> None:
        if text and text != self.last_board:
            self.say(text)
            self.last_board = text

    def event(self, kind: str, seat: int, text: str, ms: float | None) -> None:
        """The referee's events: moves and boards (a hidden game shows the person only their turns).
        The lines are kothkit.messages texts: a page shows them in its reader's language."""
        who = "you" if seat == self.me else self.names[seat]
        if kind == "reply" and seat != self.me:
            # The event comes before the game takes the reply: the match still stands at its prompt.
            now = self.match or self.start
            self.start = None  # it stands at the game's first prompt only
            if now is not None and is_handshake(self.info, now, seat):
                return
            if ms is None:
                self.say(say("{bot} moved", bot=who) if self.hidden else say("{bot} played {move}", bot=who, move=text))
            elif self.hidden:
                self.say(say("{bot} moved ({seconds} s)", bot=who, seconds=f"{ms / 1000:.2f}"))
            else:
                self.say(say("{bot} played {move} ({seconds} s)", bot=who, move=text, seconds=f"{ms / 1000:.2f}"))
        elif kind == "board" and not self.hidden:
            self.board(text)
        elif kind == "verdict":
            self.say(say("{bot} lost by a fault: {reason}", bot=who, reason=text))

    def __call__(self, match: Match, prompt: Prompt) -> Any:
        """The person's reply to ``prompt``: asked until the game accepts it."""
        self.match = match
        turn = turn_of(self.info, match, prompt)
        if turn.auto is not None:
            return turn.auto
        self.board(turn.board)
        while True:
            self.stdout.write(f"{turn.asks}\n> ")
            self.stdout.flush()
            line = self.stdin.readline()
            if not line or line.strip().lower() == "quit":
                raise Abandoned()
            if not line.strip():
                continue
            reply, problem = read_entry(turn, match, prompt.seat, line)
            if problem is None:
                return reply
            self.say(problem)




def new_game(journal: Path, info: GameInfo, seats: tuple[BotSpec, ...], limits: Limits,
             rules: dict[str, Any], seed: int | None = None, *,
             challenge_seed: int | None = None) -> tuple[GameTask, int, int]:
    """The next game of ``seats`` (a person's and a bot's, or bots' at a table of more seats) in the
    play journal ``journal``:
    its task (slot ``k`` of the pair under the play seed: the first not in the journal), the run
    started for it (given to :func:`store_game` or :func:`drop_game`) and the play seed.  ``seed``: the play seed
    (default: ``challenge_seed``, a challenge file's, else the journal's last one, else a fresh one)."""
    from kothkit.bots.folders import journal_entry
    from kothkit.playing.schedule import game_key, id_maker, settings_of
    from kothkit.playing.seeding import derive
    from kothkit.playing.settings import choose_seed
    from kothkit.plugins import game_code
    from kothkit.store.journal import Journal
    from kothkit.store.records import GameTask

    game = info.name
    names = tuple(s.name for s in seats)
    settings = settings_of(limits, rules, game_code(info))
    journal.parent.mkdir(parents=True, exist_ok=True)
    with Journal(journal) as j:
        last = j.last_run(game)
        seed = choose_seed(game, option=seed, challenge_seed=challenge_seed, journal=j).value
        together = tuple(sorted(names))  # (a pair's: its two names, as ever)
        # A table of more seats: game k's id and seed as a schedule's table of round k has them
        # (kothkit.playing.schedule.table_slot), so that verify finds its run as a tournament's.
        table = len(seats) != 2
        make = id_maker(game_key(game, settings), seats, ("table",) if table else together)
        k = 0
        while list(j.results([make(f"{k}\x1f{seed}")])):
            k += 1
        # The run names every bot of the earlier plays under this seed and settings too, so that
        # their games still count as the journal's current games (kothkit verify, prune).
        bots: dict[str, dict[str, Any]] = {}
        same = last is not None and last["seed"] == seed
        if same and last is not None and json.loads(last["settings"]) == json.loads(json.dumps(settings)):
            for entry in json.loads(last["bots"]):
                bots.setdefault(entry["name"], entry)
        for spec in seats:
            entry = {"name": spec.name, "hash": spec.hash}
            if spec.kind != BotKind.HUMAN:
                entry["where"] = journal_entry(spec, journal)
            bots[spec.name] = entry
        run_id = j.start_run(game, seed, settings, list(bots.values()))
    game_seed = derive(seed, "table", k, *names) if table else derive(seed, "game", *together, k)
    task = GameTask(id=make(f"{k}\x1f{seed}"), game=game, players=seats, seed=game_seed,
                    limits=limits, rules=rules, index=k)
    return task, run_id, seed


def store_game(journal: Path, run_id: int, record: GameRecord) -> None:
    """Store a finished play game in its journal, its run finished."""
    from kothkit.store.journal import Journal, row_of

    with Journal(journal) as j:
        j.add_rows([row_of(record)])
        j.finish_run(run_id, 1, 0)


def drop_game(journal: Path, run_id: int) -> None:
    """A play game left unfinished: its run is finished with no game stored."""
    from kothkit.store.journal import Journal

    with Journal(journal) as j:
        j.finish_run(run_id, 0, 0)
