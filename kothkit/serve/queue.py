"""The work queue: which build or game the next free slot takes, fairly between challenges.

Nothing here is stored: the queue is what the state says is not done yet
(submissions not built, scheduled games not in the journal), so a restart
rebuilds it and redoes what was cut short.

Order: builds first (a submission waits for nothing but its build), then the games
of a new or changed bot (a new submission's: in the order of
:meth:`kothkit.playing.schedule.Planned.backlog`, its opponents in a seeded random
order, the new bots taking turns), then the rest (games left over
from a restart, or played again because the game's code changed).  At each level
the challenges take turns (round robin), so that no challenge starves another
however many games it has queued.  A replaced brain's queued games are dropped at
once (:meth:`GameQueue.drop`).  A stateful bot is in at most one game at a
time, and gets its games in schedule order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence

import attrs

from kothkit.store.records import GameTask

#: How far into a challenge's queue a slot looks for a game whose stateful bots are free.
LOOK_AHEAD = 256


@attrs.define
class GameQueue:
    """One challenge's unplayed games: ``fresh`` (a new or changed bot's) before ``rest``."""

    fresh: deque = attrs.field(factory=deque)
    rest: deque = attrs.field(factory=deque)
    #: Names of the stateful bots among the challenge's bots.
    stateful: frozenset = frozenset()
    #: Stateful bots in a game right now.
    busy: set = attrs.field(factory=set)

    def __len__(self) -> int:
        return len(self.fresh) + len(self.rest)

    def reset(self, fresh: Iterable[GameTask], rest: Iterable[GameTask], stateful: Iterable[str]) -> None:
        """A new schedule: these are the games to play (``busy`` is kept: those games are still on)."""
        self.fresh, self.rest = deque(fresh), deque(rest)
        self.stateful = frozenset(stateful)

    def push_back(self, task: GameTask, fresh: bool) -> None:
        """A game lost with its worker: first in line again."""
        (self.fresh if fresh else self.rest).appendleft(task)

    def drop(self, bots: set[str]) -> int:
        """Take out the queued games of ``bots`` (a brain replaced: its games are not played);
        how many were dropped."""
        before = len(self)
        self.fresh = deque(t for t in self.fresh if bots.isdisjoint(b.name for b in t.players))
        self.rest = deque(t for t in self.rest if bots.isdisjoint(b.name for b in t.players))
        return before - len(self)

    def take(self, level: int) -> GameTask | None:
        """The next game at ``level`` (0: fresh, 1: rest) that can start now, or None."""
        queue = self.fresh if level == 0 else self.rest
        if not self.stateful:
            return queue.popleft() if queue else None
        blocked: set[str] = set()
        for i, t in enumerate(queue):
            if i >= LOOK_AHEAD:
                break
            names = {b.name for b in t.players} & self.stateful
            if names & (self.busy | blocked):
                blocked |= names  # its later games wait for this one: schedule order
                continue
            del queue[i]
            self.busy |= names
            return t
        return None

    def done(self, task: GameTask) -> None:
        self.busy.difference_update(b.name for b in task.players)


def pick(queues: Sequence[GameQueue], start: int) -> tuple[int, GameTask] | None:
    """(index of the queue, its game) for the next free slot: fresh games first, the queues taking
    turns from ``start`` (the one after the last served); None when no game can start."""
    n = len(queues)
    for level in (0, 1):
        for k in range(n):
            i = (start + k) % n
            t = queues[i].take(level)
            if t is not None:
                return i, t
    return None
