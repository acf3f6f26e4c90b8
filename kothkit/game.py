"""The game interface: what a game plugin implements and the records it trades with the core.

A game is a pure state machine.  The core's referee repeatedly asks the match
what happens next (:meth:`Match.next`): either a :class:`Prompt` (send these
lines, then wait for one reply from one seat) or an :class:`Outcome` (the game
is over).  Each reply is handed back to :meth:`Match.play`, which judges it
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
"""

from __future__ import annotations

import abc
import enum
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

import attrs

from kothkit.limits import Limits
from kothkit.scoring import Scoring, Standing


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


class Prompt(NamedTuple):
    """Send ``notices`` in order, then ``payload`` to ``seat`` and wait for its reply.

    ``clock`` names the time control for the reply: ``"first"`` uses the
    limits' ``first_reply_time`` (e.g. START -> OK), ``"move"`` uses ``move_time``.

    A named tuple rather than an attrs class: a game makes one per move, and
    a tuple is built several times faster.
    """

    seat: int
    payload: Any
    notices: tuple[Message, ...] = ()
    clock: str = "move"


@attrs.frozen
class Outcome:
    """The end of a game: ``winner`` is a seat index, or None for a draw."""

    winner: int | None
    reason: str


@attrs.frozen
class Rejected:
    """A reply the game refuses: ``verdict`` is Verdict.INVALID_REPLY (cannot be parsed) or Verdict.ILLEGAL_MOVE."""

    verdict: Verdict
    reason: str


@attrs.frozen
class Setup:
    """Everything a match needs to start: seat names, its seed, and the rules settings."""

    players: tuple[str, ...]
    seed: int
    rules: Mapping[str, Any] = attrs.field(factory=dict)


class Match(abc.ABC):
    """One game in progress.  Subclass it; the core creates one per game.

    A subclass's ``__init__`` calls ``super().__init__(setup)``, which sets ``setup``, ``rules``
    (the checked settings) and ``outcome`` (None until the game is over: a game sets it on the move
    that ends it, :meth:`forfeit` on a fault).
    """

    #: How the game ended, once it has (a game's last move sets it; so does :meth:`forfeit`).
    outcome: Outcome | None = None

    def __init__(self, setup: Setup) -> None:
        self.setup = setup
        #: The rules settings, checked and complete (see :meth:`check_rules`).
        self.rules = self.check_rules(setup.rules)
        self.outcome = None

    @classmethod
    def check_rules(cls, rules: Mapping[str, Any]) -> Mapping[str, Any]:
        """The complete rules settings for ``rules`` (the game's defaults filled in); a ValueError
        naming the setting otherwise.

        The one place a game checks its rules: the core calls it once for a run, before any game
        is played (a bad setting is then reported with the file it came from), and
        ``Match.__init__`` calls it for each match.  The default takes any settings as they are.
        """
        return rules

    @abc.abstractmethod
    def next(self) -> Prompt | Outcome:
        """What happens now.  Called again after every accepted reply; must be idempotent."""

    @abc.abstractmethod
    def play(self, seat: int, reply: Any) -> Rejected | None:
        """Judge ``seat``'s reply to the current prompt; apply it and return None if accepted.

        ``reply`` is a ``str`` (one line, newline stripped) from a program bot, or
        the value a function bot returned.  Must never raise for bad input.
        """

    def encode(self, payload: Any) -> str:
        """The line (without newline) that carries ``payload`` to a program bot."""
        return str(payload)

    def final(self, outcome: Outcome) -> tuple[Message, ...]:
        """Lines sent to the seats once the game is over (e.g. ``EXIT NAME``)."""
        return ()

    def forfeit(self, seat: int, verdict: Verdict, reason: str) -> Outcome:
        """The outcome when ``seat`` loses by a fault (the core's or the game's verdict).

        Kept in :attr:`outcome` unless the game was already over.  Override it to score a fault
        otherwise (the outcome a game of more than two seats gives, say); keep the outcome then too.
        """
        others = [s for s in range(len(self.setup.players)) if s != seat]
        outcome = Outcome(winner=others[0] if len(others) == 1 else None, reason=f"{verdict}: {reason}")
        if self.outcome is None:
            self.outcome = outcome
        return outcome

    def render(self) -> str:
        """The match drawn as text for people (debug transcripts, replays, ``kothkit play``); optional.

        A game that overrides it renders (:attr:`GameInfo.renders`); it must not raise for any
        position the game can reach.
        """
        raise NotImplementedError

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


@attrs.frozen
class GameInfo:
    """What a game plugin registers through ``kothkit_games``."""

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
    #: Number of seats in one game.
    seats: int = 2
    #: Whether a game can end in a draw (if not, match statistics leave the draw ratio out).
    draws: bool = True
    #: Lines starting with this prefix are diagnostics: logged, never a reply, never out of turn.
    aside_prefix: str | None = None
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

    @property
    def renders(self) -> bool:
        """Whether the game's matches draw themselves as text (their class overrides :meth:`Match.render`)."""
        return getattr(self.match, "render", Match.render) is not Match.render

    def check_rules(self, rules: Mapping[str, Any] | None = None) -> Mapping[str, Any]:
        """The game's rules settings (:attr:`rules`) with ``rules`` over them, checked by its
        :meth:`Match.check_rules`: what the core calls once for a run.  ValueError (or TypeError)
        names a bad setting."""
        merged = {**self.rules, **(rules or {})}
        check = getattr(self.match, "check_rules", None)
        return check(merged) if check is not None else merged
