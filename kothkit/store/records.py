"""Records traded between the scheduler, the referee and the journal: plain, frozen, picklable.

A :class:`GameTask` is the referee's self-contained unit of work (everything
needed to play one game anywhere: another process, another machine); a
:class:`GameRecord` is everything that game produced.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple

import attrs

from kothkit.bots.folders import BotSpec
from kothkit.limits import Limits

#: Keys of :attr:`GameRecord.logs` that hold the core's notes on the logs (a key with a space is
#: never a bot's name).  LOG_MOVES: per bot, ``{"moves": [m, ...], "stderr": k}``: for each line of
#: that bot's log (``logs[bot].split("\n")``), how many replies the game had recorded when the line
#: came (so it came during move ``m + 1``; one more than the game's replies: after the game), the first
#: ``k`` lines being its stderr and the rest its diagnostic (aside) lines.  LATE_REPLY: the reply
#: of a bot that timed out, had it come in the game's grace period after its deadline:
#: ``[seat, reply, ms]`` (ms measured from its prompt, as a move's).
LOG_MOVES = "kothkit: moves"
LATE_REPLY = "kothkit: late reply"
#: In a game of more than two seats, each seat that left the game by a fault, in the order they
#: left: ``[seat, replies]``, the replies the game had recorded when it left (where a re-play calls
#: ``Match.leave`` again: :func:`left_at`).
LEFT = "kothkit: left"


def left_at(logs: Mapping[str, object]) -> dict[int, list[int]]:
    """A record's :data:`LEFT` note: the seats that left after each number of replies, in order."""
    at: dict[int, list[int]] = {}
    note = logs.get(LEFT)
    if isinstance(note, list):
        for item in note:
            if isinstance(item, list) and len(item) == 2 and all(type(x) is int for x in item):
                at.setdefault(item[1], []).append(item[0])
    return at

#: What joins a verdict's reason (``crash: killed by SIGSEGV``) to the bot's own words quoted
#: from its stderr, which are its author's only (the referee writes it; :func:`split_reason`).
STDERR_MARK = "; stderr: "


def split_reason(reason: str) -> tuple[str, str]:
    """A game's reason as (what anyone may read, what only the offender's author may): the verdict
    and its neutral cause, and the quote of the bot's stderr (``""`` when there is none).  The quote
    is always the end of the reason (nothing the core writes follows it), so everything from the
    first mark on is private, in journals old and new."""
    at = reason.find(STDERR_MARK)
    return (reason, "") if at < 0 else (reason[:at], reason[at + 2:])


@attrs.frozen
class GameTask:
    #: Identity of the game: derived from the game, its settings, both bots' hashes and the seed slot.
    id: str
    game: str
    #: Bots in seat order (seat 0 opens).
    players: tuple[BotSpec, ...]
    seed: int
    limits: Limits
    rules: Mapping[str, object] = attrs.field(factory=dict)
    #: Position in the tournament's schedule (stateful bots see their games in this order).
    index: int = 0
    #: Function bots are called in the referee's own process (``--trusted``: no isolation) rather
    #: than each in an isolated function host.
    trusted: bool = False

    def isolated(self) -> GameTask:
        """This task with its function bots in hosts of their own (itself if none is trusted)."""
        return attrs.evolve(self, trusted=False) if self.trusted else self

    def __reduce__(self) -> tuple[Callable[..., GameTask], tuple[object, ...]]:
        # Tasks go to workers by the thousand: a tuple of fields pickles faster than attrs' protocol.
        return (_unpickle_task, (self.id, self.game, self.players, self.seed, self.limits, self.rules, self.index,
                                 self.trusted))


class Move(NamedTuple):
    """One reply of a game (a tuple: games have many, and records cross process boundaries)."""

    seat: int
    #: The reply as received: the line for program bots, the returned value for function bots.
    reply: object
    #: Measured reply time in milliseconds (wall time, prompt sent to reply received).
    ms: float


class GameResult(NamedTuple):
    """What standings and progress reports need of a finished game: no moves, no logs."""

    id: str
    players: tuple[str, ...]
    winner: str | None
    reason: str
    #: The bot that lost by the verdict, or None.
    offender: str | None
    #: A :class:`kothkit.game.Verdict` (its string, as read back from a journal), or None.
    verdict: str | None
    #: The game's place in the current schedule, a record's ``index`` (-1 where unknown).  Not named
    #: ``index``: a named tuple's field would hide tuple's own ``index`` method.
    place: int = -1
    #: Every seat's place and points (a game of more than two seats, GameRecord's); None: from ``winner``.
    seat_places: tuple[int, ...] | None = None
    seat_points: tuple[float, ...] | None = None


@attrs.frozen
class GameRecord:
    id: str
    game: str
    index: int
    players: tuple[str, ...]
    hashes: tuple[str, ...]
    seed: int
    winner: str | None
    reason: str
    #: The bot that lost by the verdict (the journal's ``fault`` column), or None.
    offender: str | None = None
    #: Why it lost: a :class:`kothkit.game.Verdict` (its string, as read back from a journal), or None.
    verdict: str | None = None
    moves: tuple[Move, ...] = ()
    #: Per bot: kept stderr and diagnostic (aside) lines; and the notes under LOG_MOVES and LATE_REPLY.
    logs: Mapping[str, object] = attrs.field(factory=dict)
    #: Wall seconds the game took (not part of the result: never compared).
    seconds: float = 0.0
    #: Each seat's memory peak in the game, in MiB (its memory cgroup's), None for a seat without
    #: one; None when no seat had one (and in journals from before it was kept).  Not compared.
    memory: tuple[int | None, ...] | None = None
    #: Every seat's place (1 = first; ties share one) and points, in seat order, where the game has
    #: more than two seats or gave them (None otherwise: ``winner`` says all, as in journals of
    #: before).  Seats that left the game by a fault share the last place and score the forfeit.
    seat_places: tuple[int, ...] | None = None
    seat_points: tuple[float, ...] | None = None
    #: Every seat's verdict (a :class:`kothkit.game.Verdict`'s string, None: no fault), with the
    #: seat places; ``offender`` and ``verdict`` are the first seat's that faulted.
    seat_verdicts: tuple[str | None, ...] | None = None

    def __reduce__(self) -> tuple[Callable[..., GameRecord], tuple[object, ...]]:
        # Records cross from workers to the judge by the thousand: a plain tuple of fields
        # pickles several times faster than attrs' generic state protocol.
        return (_unpickle_record, (self.id, self.game, self.index, self.players, self.hashes, self.seed, self.winner,
                                   self.reason, self.offender, self.verdict, [tuple(m) for m in self.moves], self.logs,
                                   self.seconds, self.memory, self.seat_places, self.seat_points, self.seat_verdicts))

    def result_key(self) -> tuple[object, ...]:
        """What must be identical between two plays of the same game (no timings)."""
        key: tuple[object, ...] = (self.id, self.players, self.winner, self.reason, self.offender, self.verdict,
                                   tuple((m.seat, m.reply) for m in self.moves))
        if self.seat_places is not None:
            key += (self.seat_places, self.seat_points, self.seat_verdicts)
        return key


def seat_results(places: tuple[int, ...], points: tuple[float, ...] | None, gone: set[int],
                 forfeit: float) -> tuple[tuple[int, ...], tuple[float, ...] | None]:
    """Every seat's final place and points: the seats still in the game placed among themselves as
    ``places`` has them (ties sharing a place), every seat in ``gone`` (left by a fault) sharing the
    place below them all and scoring ``forfeit``; ``points`` None stays None."""
    n = len(places)
    kept = [places[s] for s in range(n) if s not in gone]
    final = tuple(len(kept) + 1 if s in gone else 1 + sum(1 for q in kept if q < places[s]) for s in range(n))
    if points is None:
        return final, None
    return final, tuple(float(forfeit) if s in gone else float(points[s]) for s in range(n))


# The two constructors below take the fields in the order their class's ``__reduce__`` gives them
# (the classes' own order); everything else builds records by keyword.
def _unpickle_task(id: str, game: str, players: tuple[BotSpec, ...], seed: int, limits: Limits,
                   rules: Mapping[str, object], index: int, trusted: bool) -> GameTask:
    return GameTask(id, game, players, seed, limits, rules, index, trusted)


def _unpickle_record(id: str, game: str, index: int, players: tuple[str, ...], hashes: tuple[str, ...], seed: int,
                     winner: str | None, reason: str, offender: str | None, verdict: str | None,
                     moves: list[tuple[int, object, float]], logs: Mapping[str, object], seconds: float,
                     memory: tuple[int | None, ...] | None = None, seat_places: tuple[int, ...] | None = None,
                     seat_points: tuple[float, ...] | None = None,
                     seat_verdicts: tuple[str | None, ...] | None = None) -> GameRecord:
    return GameRecord(id, game, index, players, hashes, seed, winner, reason, offender, verdict,
                      moves=tuple(Move._make(m) for m in moves), logs=logs, seconds=seconds, memory=memory,
                      seat_places=seat_places, seat_points=seat_points, seat_verdicts=seat_verdicts)
