"""The game interface: what a game plugin implements and the records it trades with the core.

A game is a pure state machine.  The core's referee repeatedly asks the match
what happens next (:meth:`Match.next`): a :class:`Prompt` (send these
lines, then wait for one reply from one seat), a :class:`Round` (simultaneous
moves: prompts to several seats at once, their replies collected together) or an
:class:`Outcome` (the game is over).  Each reply is handed back to :meth:`Match.play`, which judges it
(returning a :class:`Rejected` for a bad one) and applies it.  The base class
keeps the outcome (``Match.outcome``, set by a game's last move or by
:meth:`Match.forfeit`), checks the rules settings (:meth:`Match.check_rules`,
which the core calls once a run) and draws the match for people
(:meth:`Match.render`, optional).  A match never
starts a process, reads a clock, sleeps or draws an unseeded random number:
time, limits, faults and records are the core's job.

Payloads are the game's own values.  For program bots the core turns a payload
into one line with :meth:`Match.encode` and hands the reply line back as a
``str``.  For Python function bots (games that set ``GameInfo.function_bots``)
a prompt payload is a tuple of positional arguments, the function is called as
``f(*payload, state)`` and its first return value is handed to ``play`` as is.

What a game writes beyond its rules is little: name its codec (``codec = my_codec``), declare
its rules once with their checks (``RULES = {"size": Rule(15, integer(5, 25))}``), start
:meth:`Match.play` with ``if (no := self.not_due(seat)): return no``, end with
:meth:`Match.win` or :meth:`Match.draw`, and set ``tells_result`` for the usual last line
(:class:`End`).  What it offers people (:meth:`Match.picture`, :meth:`Match.human`) is on the
match class; its exporters and check scenarios are in its :class:`GameInfo`.
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Protocol

import attrs

from kothkit.botspec import BotKind
from kothkit.limits import Limits
from kothkit.messages import say
from kothkit.scoring import Scoring, Standing

if TYPE_CHECKING:
    from kothkit.botspec import BotSpec
    from kothkit.people import Grid, Svg, Turn
    from kothkit.scenarios import Scenario


class Verdict(enum.StrEnum):
    """Why a bot lost by a fault: the one vocabulary of games, referee, records and reports.

    A game gives the last two in :class:`Rejected`; the core rules on the others.  Each is a
    ``str`` whose value is what journals, ``--json`` output and reports carry (a record read back
    from a journal holds the plain string, which compares equal).
    """

    #: The bot died, failed to start, or (a function bot) raised.
    CRASH = "crash"
    #: No reply within the move's (or the first reply's) time.
    TIMEOUT = "timeout"
    #: The bot used up its thinking time for the whole game (``Limits.game_time``).
    TIME_BUDGET = "time-budget"
    #: The bot went past its memory limit.
    MEMORY = "memory"
    #: The bot filled its scratch disk (its folder's space in the jail).
    DISK = "disk"
    #: The bot wrote a line when no reply was due from it.
    OUT_OF_TURN = "out-of-turn"
    #: The reply cannot be read (the game's verdict, or a line too long or not UTF-8).
    INVALID_REPLY = "invalid-reply"
    #: The reply reads well but the rules forbid it (the game's verdict).
    ILLEGAL_MOVE = "illegal-move"


@attrs.frozen
class Message:
    """One line the core sends to ``seat`` without waiting for a reply."""

    seat: int
    payload: Any


class Clock(enum.StrEnum):
    """A :class:`Prompt`'s time control."""

    #: The limits' ``first_reply_time`` (e.g. START -> OK).
    FIRST = "first"
    #: The limits' ``move_time``.
    MOVE = "move"
    #: The limits' ``startup_time`` (an engine's start-up), never charged to ``game_time``.
    START = "start"


class Prompt(NamedTuple):
    """Send ``notices`` in order, then ``payload`` to ``seat`` and wait for its reply.

    ``clock`` names the time control for the reply: ``"first"`` uses the
    limits' ``first_reply_time`` (e.g. START -> OK), ``"move"`` uses ``move_time``,
    ``"start"`` the ``startup_time`` (an engine's start-up: never charged to its game budget).

    A named tuple rather than an attrs class: a game makes one per move, and
    a tuple is built several times faster.
    """

    seat: int
    payload: Any
    notices: tuple[Message, ...] = ()
    clock: Clock | str = Clock.MOVE


@attrs.frozen
class Outcome:
    """The end of a game: every seat's result.

    ``winner`` is the two-seat shorthand (a seat index, or None for a draw), and all a two-seat
    game gives.  A game of more seats gives ``points`` (the game's own, per seat, more is better)
    and/or ``places`` (per seat, 1 = first; tied seats share a place and the next is skipped:
    ``(1, 1, 3)``); :meth:`Match.finish` makes such an outcome.
    """

    winner: int | None
    reason: str
    #: Per seat, in seat order: the game's own points, or None.
    points: tuple[float, ...] | None = None
    #: Per seat, in seat order: the place, 1 = first (ties share one: 1, 1, 3), or None.
    places: tuple[int, ...] | None = None

    def places_of(self, n: int) -> tuple[int, ...]:
        """Every one of ``n`` seats' place: :attr:`places` if given; else from :attr:`points` (more
        is better, equal points share a place); else from :attr:`winner` (the winner 1, every other
        seat 2; a draw: every seat 1)."""
        if self.places is not None:
            return tuple(self.places)
        if self.points is not None:
            return places_from_points(self.points)
        if self.winner is None:
            return (1,) * n
        return tuple(1 if s == self.winner else 2 for s in range(n))


def places_from_points(points: Sequence[float]) -> tuple[int, ...]:
    """Places from points, more is better: equal points share a place, and the next is skipped
    (points 5, 5, 2 -> places 1, 1, 3)."""
    return tuple(1 + sum(1 for q in points if q > p) for p in points)


class Round(NamedTuple):
    """Simultaneous moves: the prompts of several seats, sent at once.

    Every prompt goes out at once (each seat's notices, then its payload); the replies are
    collected together, each within its own prompt's clock (a round costs the slowest reply, not
    the sum), then handed to :meth:`Match.play` (``play(seat, reply)``) one by one in seat order.
    After each accepted play, :meth:`Match.next` returns the Round without that seat's prompt (or
    the next step once the round is complete): ``next()`` stays idempotent, and
    :meth:`Match.not_due` accepts a seat whose prompt is in the current Round.  Each seat sees
    only its own prompt: a game shows a seat the others' moves of a round in a later prompt.
    """

    prompts: tuple[Prompt, ...]

    @property
    def seats(self) -> tuple[int, ...]:
        """The seats a reply is due from, in the prompts' order."""
        return tuple(p.seat for p in self.prompts)

    def prompt_of(self, seat: int) -> Prompt | None:
        """``seat``'s prompt in this round, or None if no reply is due from it."""
        return next((p for p in self.prompts if p.seat == seat), None)


@attrs.frozen
class Rejected:
    """A reply the game refuses: ``verdict`` is Verdict.INVALID_REPLY (cannot be parsed) or Verdict.ILLEGAL_MOVE."""

    verdict: Verdict
    reason: str


@attrs.define(eq=False)
class SeatClocks:
    """Each seat's own reply time used so far in a game, kept by the core as the game goes: what a
    game that tells its bots their time (Piskvork's ``INFO time_left``) reads.  A match reads it,
    never changes it; it is no clock of the match's own (a replay of the game sees the times zero)."""

    #: Seconds of reply time each seat has used, in seat order (replies to ``clock="start"``
    #: prompts not counted).
    used: list[float]
    #: The game's budget per seat (``Limits.game_time``), or None without one.
    budget: float | None = None

    def left(self, seat: int) -> float | None:
        """Seconds ``seat`` has left of its budget (never below 0), or None without a budget."""
        return None if self.budget is None else max(0.0, self.budget - self.used[seat])


@attrs.frozen
class Setup:
    """Everything a match needs to start: seat names, its seed, and the rules settings; and, for a
    game that tells its bots their limits, the limits and the seats' clock (None where nobody
    plays against them: a replay, the conformance kit).  A game's outcome must never depend on
    the last two: a replay of its moves must reach the same end."""

    players: tuple[str, ...]
    seed: int
    rules: Mapping[str, Any] = attrs.field(factory=dict)
    #: The limits the core holds the game's bots to (:class:`kothkit.limits.Limits`), or None.
    limits: Limits | None = attrs.field(default=None, eq=False)
    #: The seats' reply time used so far (:class:`SeatClocks`), kept up to date by the core, or None.
    clock: SeatClocks | None = attrs.field(default=None, eq=False)


class End(enum.StrEnum):
    """The result a seat is told once the game is over, by :meth:`Match.final` when the match
    class sets ``tells_result`` (the codec writes it on the wire, e.g. ``END WIN``)."""

    WIN = "WIN"
    LOSS = "LOSS"
    DRAW = "DRAW"

    @classmethod
    def of(cls, outcome: Outcome, seat: int) -> End:
        """What ``seat`` is told of ``outcome`` (an outcome of points or places: WIN alone in first
        place, DRAW sharing it, LOSS below it)."""
        if outcome.points is None and outcome.places is None:
            return cls.DRAW if outcome.winner is None else cls.WIN if outcome.winner == seat else cls.LOSS
        n = len(outcome.places if outcome.places is not None else outcome.points or ())
        places = outcome.places_of(n)
        if places[seat] != 1:
            return cls.LOSS
        return cls.WIN if places.count(1) == 1 else cls.DRAW


@attrs.frozen
class Rule:
    """One rules setting, declared once in :attr:`Match.RULES`: its default and its check."""

    default: Any
    #: ``check(value)``: why ``value`` is wrong ("must be an integer from 5 to 25"), or None.
    check: Callable[[Any], str | None] | None = None
    #: What it means, for people reading the game (its docs, its README).
    help: str = ""


def integer(low: int, high: int) -> Callable[[Any], str | None]:
    """A :attr:`Rule.check`: an ``int`` (not a bool) from ``low`` to ``high``."""
    def check(value: Any) -> str | None:
        if type(value) is int and low <= value <= high:
            return None
        return f"must be an integer from {low} to {high}, got {value!r}"
    return check


def one_of(*choices: Any) -> Callable[[Any], str | None]:
    """A :attr:`Rule.check`: one of ``choices``."""
    def check(value: Any) -> str | None:
        if value in choices and type(value) in {type(c) for c in choices}:
            return None
        return f"must be one of {', '.join(repr(c) for c in choices)}, got {value!r}"
    return check


class Match(abc.ABC):
    """One game in progress.  Subclass it; the core creates one per game.

    A subclass's ``__init__`` calls ``super().__init__(setup)``, which sets ``setup``, ``rules``
    (the checked settings), ``outcome`` (None until the game is over: a game sets it on the move
    that ends it, :meth:`forfeit` on a fault) and ``out`` (the seats out of the game by a fault).
    """

    #: How the game ended, once it has (a game's last move sets it; so does :meth:`forfeit`).
    outcome: Outcome | None = None
    #: Seats out of this game by a fault (:meth:`leave` adds them): :meth:`next` must not prompt
    #: them, and the game goes on among the others.  Empty in a two-seat game (a fault ends it).
    out: set[int]
    #: The game's codec, named rather than wrapped: a module (or object) with ``encode(payload)``
    #: and, optionally, ``decode(line)``, which become this class's :meth:`encode` and :meth:`decode`.
    codec: ClassVar[Any] = None
    #: The rules settings, declared once: name -> :class:`Rule` (or a plain default, unchecked).
    #: The default :meth:`check_rules` fills the defaults in, refuses unknown names and runs each
    #: check; :class:`GameInfo` takes its ``rules`` from here when it names none.
    RULES: ClassVar[Mapping[str, Any]] = {}
    #: Whether the default :meth:`final` tells each seat its :class:`End` (WIN, LOSS or DRAW).
    tells_result: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        codec = cls.__dict__.get("codec")
        if codec is not None:
            # Bound as the class's own functions: the referee encodes every line, so no wrapper call.
            if "encode" not in cls.__dict__:
                cls.encode = staticmethod(codec.encode)  # type: ignore[method-assign]
            if "decode" not in cls.__dict__ and hasattr(codec, "decode"):
                cls.decode = staticmethod(codec.decode)  # type: ignore[method-assign]

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        #: The rules settings, checked and complete (see :meth:`check_rules`).
        self.rules = self.check_rules(setup.rules)
        self.outcome = None
        self.out = set()

    @classmethod
    def check_rules(cls, rules: Mapping[str, Any]) -> Mapping[str, Any]:
        """The complete rules settings for ``rules`` (the game's defaults filled in); a ValueError
        naming the setting otherwise.

        The one place a game checks its rules: the core calls it once for a run, before any game
        is played (a bad setting is then reported with the file it came from), and
        ``Match.__init__`` calls it for each match.  The default checks them against
        :attr:`RULES` (or, for a class that declares none, takes any settings as they are).
        """
        if not cls.RULES:
            return rules
        declared = {k: v if isinstance(v, Rule) else Rule(v) for k, v in cls.RULES.items()}
        unknown = sorted(set(rules) - set(declared))
        if unknown:
            raise ValueError(f"unknown rules setting {unknown[0]!r} (known: {', '.join(declared)})")
        merged = {k: r.default for k, r in declared.items()} | dict(rules)
        for key, rule in declared.items():
            problem = rule.check(merged[key]) if rule.check is not None else None
            if problem is not None:
                raise ValueError(f"rules setting {key} {problem}")
        return merged

    @abc.abstractmethod
    def next(self) -> Prompt | Round | Outcome:
        """What happens now: one seat's :class:`Prompt`, a :class:`Round` of simultaneous moves, or
        the :class:`Outcome`.  Called again after every accepted reply; must be idempotent."""

    @abc.abstractmethod
    def play(self, seat: int, reply: Any) -> Rejected | None:
        """Judge ``seat``'s reply to the current prompt; apply it and return None if accepted.

        ``reply`` is a ``str`` (one line, newline stripped) from a program bot, or
        the value a function bot returned.  Must never raise for bad input.
        """

    def encode(self, payload: Any) -> str:
        """The line (without newline) that carries ``payload`` to a program bot (:attr:`codec`'s
        ``encode`` when the class names one)."""
        return str(payload)

    def final(self, outcome: Outcome) -> tuple[Message, ...]:
        """Lines sent to the seats once the game is over (e.g. ``EXIT NAME``).  By default none,
        or with ``tells_result`` each seat's :class:`End`."""
        if not self.tells_result:
            return ()
        return tuple(Message(seat, End.of(outcome, seat)) for seat in range(len(self.setup.players)))

    # -- helpers for a game's play() ------------------------------------------------
    def not_due(self, seat: int) -> Rejected | None:
        """The standard guard: a :class:`Rejected` if the game is over or no reply is due from
        ``seat`` (asked of :meth:`next`: the prompt's seat, or one of a :class:`Round`'s), else
        None.  ``if (no := self.not_due(seat)): return no``."""
        now = self.next()
        if isinstance(now, Outcome):
            return Rejected(Verdict.ILLEGAL_MOVE, say("the game is over"))
        if isinstance(now, Round):
            if seat in now.seats:
                return None
            return Rejected(Verdict.ILLEGAL_MOVE, say("seat {seat} replied when no reply was due from it",
                                                      seat=seat))
        if now.seat != seat:
            return Rejected(Verdict.ILLEGAL_MOVE, say("seat {seat} replied when seat {turn} was to",
                                                      seat=seat, turn=now.seat))
        return None

    def win(self, seat: int, reason: str) -> Outcome:
        """End the game, won by ``seat``: sets and returns :attr:`outcome`."""
        self.outcome = Outcome(winner=seat, reason=reason)
        return self.outcome

    def draw(self, reason: str) -> Outcome:
        """End the game drawn: sets and returns :attr:`outcome`."""
        self.outcome = Outcome(winner=None, reason=reason)
        return self.outcome

    def finish(self, reason: str, *, points: Sequence[float] | None = None,
               places: Sequence[int] | None = None) -> Outcome:
        """End a game of any number of seats with every seat's ``points`` and/or ``places`` (in seat
        order; see :class:`Outcome`): ``winner`` is the one seat alone in first place, else None.
        Sets and returns :attr:`outcome`."""
        n = len(self.setup.players)
        for name, given in (("points", points), ("places", places)):
            if given is not None and len(given) != n:
                raise ValueError(f"finish(): {len(given)} {name} for {n} seats")
        if points is None and places is None:
            raise ValueError("finish(): give points, places or both")
        outcome = Outcome(winner=None, reason=reason, points=None if points is None else tuple(points),
                          places=None if places is None else tuple(places))
        firsts = [s for s, p in enumerate(outcome.places_of(n)) if p == 1]
        self.outcome = attrs.evolve(outcome, winner=firsts[0]) if len(firsts) == 1 else outcome
        return self.outcome

    def forfeit(self, seat: int, verdict: Verdict, reason: str) -> Outcome:
        """The outcome when ``seat`` loses by a fault (the core's or the game's verdict), the game
        ending there.

        With two seats the other wins.  With more, the seats still in the game share first place
        and the seats out of it (``seat`` and :attr:`out`) share the last; the winner is the one
        seat left, if one.  Kept in :attr:`outcome` unless the game was already over.  Override it
        to score a fault otherwise; keep the outcome then too.
        """
        n = len(self.setup.players)
        others = [s for s in range(n) if s != seat]
        why = f"{verdict}: {reason}"
        if n == 2:
            outcome = Outcome(winner=others[0], reason=why)
        else:
            gone = self.out | {seat}
            left = [s for s in range(n) if s not in gone]
            places = tuple(1 if s not in gone else len(left) + 1 for s in range(n))
            outcome = Outcome(winner=left[0] if len(left) == 1 else None, reason=why, places=places)
        if self.outcome is None:
            self.outcome = outcome
        return outcome

    def leave(self, seat: int, verdict: Verdict, reason: str) -> Outcome | None:
        """The core's call when ``seat`` faults: the outcome if the game ends, or None if it goes
        on without the seat.

        By default, with two seats, or when fewer than two seats would remain in play, it is
        :meth:`forfeit` (the game ends); otherwise the seat joins :attr:`out` and None is
        returned: the game goes on without it (:meth:`next` must not prompt it again; a
        :class:`Round` under way loses its prompt).  A game whose rules end the game on any fault
        overrides it and returns ``self.forfeit(seat, verdict, reason)``.
        """
        n = len(self.setup.players)
        if n == 2 or n - len(self.out | {seat}) < 2:
            return self.forfeit(seat, verdict, reason)
        self.out.add(seat)
        return None

    def render(self) -> str:
        """The match drawn as text for people (debug transcripts, replays, ``kothkit play``); optional.

        A game that overrides it renders (:attr:`GameInfo.renders`); it must not raise for any
        position the game can reach.
        """
        raise NotImplementedError

    # -- optional, for people: replay pages and play by a person -----------------
    def picture(self) -> Grid | Svg | list[Grid | Svg] | None:
        """The board as a :class:`kothkit.people.Grid` (the core draws it) or
        :class:`kothkit.people.Svg` (escape any text in it), or a list of them drawn side by
        side; optional (pages show :meth:`render` text without).  Read the match, never change
        it: it is called after every move of every game a page shows."""
        return None

    def human(self, prompt: Prompt) -> Turn | None:
        """What a person in ``prompt.seat`` sees and may type: a :class:`kothkit.people.Turn`
        (only what the prompt shows a bot, in a hidden-information game); optional (without it
        ``kothkit play`` refuses the game).  The core tries the parsed reply on a copy of the
        match and asks again if the game rejects it.  Read the match, never change it."""
        return None

    # -- optional, used by the conformance kit (kothkit.testing) -----------------
    def legal_replies(self) -> list[Any]:
        """Replies the current prompt's seat could legally give (for random playouts).

        At most 1000, sampled deterministically from the setup seed when the true set is
        huge; ``[]`` once the game is over.
        """
        raise NotImplementedError

    def hidden_from(self, seat: int) -> Any:
        """For hidden-information games: what ``seat`` must not be able to see now."""
        return None

    def reveals(self, seat: int, payload: Any, hidden: Any) -> Any:
        """The part of ``hidden`` that ``payload`` (a prompt for ``seat``) discloses; empty if none.

        Used by the conformance kit with :meth:`hidden_from`; only called when overridden.
        """
        raise NotImplementedError

    def decode(self, line: str) -> Any:
        """The inverse of :meth:`encode` (for codec round trips in the kit); optional."""
        raise NotImplementedError


class GameReplay(Protocol):
    """What an exporter is handed: a game re-played from its record (the core's
    ``Transcript``)."""

    @property
    def record(self) -> Any:
        """The game's record: ``players``, ``seed``, ``index``, ``id``, ``winner``, ``reason``..."""

    @property
    def rules(self) -> Mapping[str, Any]:
        """The rules settings the game was played with."""

    @property
    def finished_at(self) -> float | None:
        """When the game was stored (seconds since the epoch, UTC), or None if unknown;
        :func:`kothkit.formats.sgf_date` writes it as a file's date."""

    @property
    def steps(self) -> Sequence[Any]:
        """Every reply in order: ``seat``, ``reply``, ``sent`` (the lines before it), ``board``..."""


#: ``exporter(replay)``: a re-played game as the text of one file.
Exporter = Callable[[GameReplay], str]


@attrs.frozen
class GameInfo:
    """What a game plugin registers through ``kothkit_games``: the game's name, its match class
    and settings, and what it offers besides (exporters, check scenarios)."""

    name: str
    summary: str
    match: Callable[[Setup], Match]
    limits: Limits = attrs.field(factory=Limits)
    rules: Mapping[str, Any] = attrs.field(factory=dict)
    scoring: Scoring = attrs.field(factory=Scoring)
    #: Folder of bundled example bots (each a bot folder), or None.
    bots: Path | None = None
    #: Extra command-line arguments for a program bot in ``seat``: f(setup, seat, bot_seed).
    bot_args: Callable[[Setup, int, int], list[str]] | None = None
    #: Whether Python function bots (``file.py:function``) can play this game.
    function_bots: bool = False
    #: Players a game seats: a fixed number, or the fewest and the most, ``(3, 10)`` (a
    #: tournament of B bots seats ``table_size(B)`` of them a game).  Two: the classic board game.
    seats: int | tuple[int, int] = 2
    #: Whether a game can end in a draw (if not, match statistics leave the draw ratio out).
    draws: bool = True
    #: Lines starting with this prefix are diagnostics: logged, never a reply, never out of turn.
    aside_prefix: str | None = None
    #: More such prefixes, matched whatever the letter case of the line (Piskvork's ``MESSAGE``
    #: and ``DEBUG``: ``message ...`` is one too).
    aside_prefixes: tuple[str, ...] = ()
    #: A program bot's lines may end in CR, LF or CR LF, and its empty lines are skipped (Piskvork's
    #: engines); otherwise a line ends at LF (a CR before it is dropped) and an empty line is a reply.
    any_line_end: bool = False
    #: Default number of rounds (each pair plays two games a round, each bot opening one).
    rounds: int = 1
    #: The rules let a bot keep thinking while its opponent moves (pondering).  Without, kothkit
    #: freezes a waiting program bot (cgroup freezer) so that nothing it left running takes CPU
    #: from its opponent; with, each bot of a game gets its own core where there are enough.
    pondering: bool = False
    #: An extra, game-specific results table printed after the standings: f(standings) -> text.
    report: Callable[[list[Standing]], str] | None = None
    #: Bot names the game's protocol uses for something else (Swap2's ``EXIT TIE``): a bot so
    #: named is left out of a tournament, with a message saying why.
    reserved_names: frozenset[str] = frozenset()
    #: The modules whose code decides outcomes (dotted names; a package counts with all its files;
    #: a leading "." is relative to the match's package): part of every game's id, so editing one
    #: plays the game's games again.  Empty: the match's module, its package's ``rules``,
    #: ``codec`` and ``match`` modules and what of the package they import, so that pictures,
    #: exports and docs change no id (:func:`kothkit.plugins.outcome_modules`).
    outcome_modules: tuple[str, ...] = ()
    #: Export formats for ``kothkit export --format NAME``: name -> exporter, or the exporter's
    #: ``"module:function"`` name (imported when first used, so that registering stays cheap).
    exporters: Mapping[str, Exporter | str] = attrs.field(factory=dict)
    #: Scripted situations ``kothkit check`` puts a bot in (:class:`kothkit.scenarios.Scenario`).
    scenarios: Sequence[Scenario] = ()
    #: The rules setting an opening goes into, for ``kothkit match --openings`` (gomocup's
    #: ``position``: stones on the board before the first move), or None: the game takes none.
    opening_rule: str | None = None
    #: ``f(seed, rules)``: an opening for :attr:`opening_rule` drawn from ``seed`` (pure: from the
    #: seed and the rules settings alone), which a match gives each game pair when no file of
    #: openings is given; or None.
    random_opening: Callable[[int, Mapping[str, Any]], str] | None = None
    #: Folder of the game's translations for the web site's pages (``kothkit serve``): a ``LANG.po``
    #: file per language (``zh_CN.po``) whose message ids are the game's English texts for people
    #: (its summary, its reasons, its boards' titles) with ``{name}`` where a value goes
    #: (:mod:`kothkit.messages`); a text that no id fits is shown in English.  None: none.
    catalogs: Path | None = None

    def __attrs_post_init__(self) -> None:
        seats: object = self.seats
        low = high = None
        if type(seats) is int:
            low = high = seats
        elif isinstance(seats, tuple) and len(seats) == 2:
            low, high = seats
        if not (type(low) is int and type(high) is int and 1 <= low <= high):
            raise ValueError(f"{self.name}: GameInfo.seats must be a positive int or (fewest, most), got {seats!r}")
        declared = getattr(self.match, "RULES", None)
        if not self.rules and declared:
            # The rules declared once, on the match class (frozen: set through object's own setter).
            defaults = {k: v.default if isinstance(v, Rule) else v for k, v in declared.items()}
            object.__setattr__(self, "rules", defaults)

    @property
    def seat_range(self) -> tuple[int, int]:
        """The fewest and the most players a game seats (``(n, n)`` for a fixed number)."""
        seats = self.seats
        return (seats, seats) if isinstance(seats, int) else (seats[0], seats[1])

    @property
    def two_seats(self) -> bool:
        """Whether a game seats exactly two players: the classic board game, which every command
        plays (pairs, head-to-head statistics, a person against a bot)."""
        return self.seat_range == (2, 2)

    def table_size(self, bots: int) -> int:
        """Seats in a game among ``bots`` entrants: as many as the game seats, at most ``bots``;
        ValueError naming the game when there are fewer bots than the fewest it seats."""
        low, high = self.seat_range
        if bots < low:
            raise ValueError(f"{self.name} needs at least {low} bots, got {bots}")
        return min(bots, high)

    def seats_said(self) -> str:
        """How many players a game seats, for people: "2", "3-10"."""
        low, high = self.seat_range
        return str(low) if low == high else f"{low}-{high}"

    @property
    def renders(self) -> bool:
        """Whether the game's matches draw themselves as text (their class overrides :meth:`Match.render`)."""
        return getattr(self.match, "render", Match.render) is not Match.render

    def takes(self, bot: BotSpec) -> bool:
        """Whether the game can play ``bot``: a Python function bot only if it takes them
        (:attr:`function_bots`), any other bot always."""
        return bot.kind != BotKind.FUNCTION or self.function_bots

    def check_rules(self, rules: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
        """The game's rules settings (:attr:`rules`) with ``rules`` over them, checked by its
        :meth:`Match.check_rules`: what the core calls once for a run.  ValueError (or TypeError)
        names a bad setting."""
        merged = {**self.rules, **(rules or {})}
        check = getattr(self.match, "check_rules", None)
        return check(merged) if check is not None else merged
