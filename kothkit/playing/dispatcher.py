"""One dispatcher: games (and a host's builds) handed to an executor, and what comes back.

``run``, ``match``, ``gauntlet`` and ``verify`` (through :func:`kothkit.playing.tournament.dispatch`)
and the host (:mod:`kothkit.serve.host`) all play through a :class:`Dispatcher`.  It is push-style:
its owner submits games (a new bot's ``first``, the others after them) and other work (a build,
a check) to a *lane* (the host has one per challenge, a run one), drops a bot's games when the bot
changes, and polls for what finished.  The dispatcher alone decides when each starts, on an
:class:`~kothkit.playing.executor.Executor` (local workers or a Dask cluster), keeping it full:

- work before games, then a lane's ``first`` games before any lane's others, lanes taking turns,
  so that no challenge starves another however many games it has queued;
- a stateful bot is in at most one running unit of work, and its games start in the order they
  were submitted (:func:`_pick`), so that its results do not depend on how many play at once;
- games go in batches that grow while they take less than the executor's ``batch_seconds``
  (games of microseconds are stored hundreds at a time) and shrink at the end so that every
  worker has some of the last games (guided self-scheduling);
- what fails is done again as its :class:`Policy` says: work lost with its worker (a dead worker,
  a pool that broke) is done again at once ``retries`` times; then ``run`` gives up
  (:class:`WorkerLost`), while the host puts a game off for a while, doubling the wait, and tries
  again later.  With ``isolate`` (run's), games played again have their function bots isolated in
  hosts of their own, nothing else starts meanwhile, and a bot that lost one by a crash or a timeout
  is played isolated from then on.

Nothing here is stored: what is queued is what its owner submitted.  The owner's callbacks are
called without the dispatcher's lock held.
"""

from __future__ import annotations

import concurrent.futures as cf
import time
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import attrs

from kothkit.game import Verdict
from kothkit.playing.executor import Executor
from kothkit.store.records import GameTask

#: How far into a lane's queue the dispatcher looks for a game whose stateful bots are free.
LOOK_AHEAD = 256
#: Seconds between looks at the workers while work is in flight (on a cluster, those that joined
#: are checked, and the work of those that left fails, to be done again, rather than wait for them).
LOOK_EVERY = 1.0

_ENDS_WORKERS = (Verdict.CRASH, Verdict.TIMEOUT)


@attrs.frozen
class Policy:
    """How work is batched, and what is done with work that fails."""

    #: Times work lost with its worker is done again at once.
    retries: int = 1
    #: Games done again are played isolated (their function bots in hosts of their own), nothing
    #: else starts until they are played, and a bot that lost one by a fault is played isolated
    #: from then on; a broken pool is waited for whole before anything is done again (run's).
    isolate: bool = True
    #: After ``retries``: None raises :class:`WorkerLost`; else the seconds a game waits before it
    #: is queued again, doubling each time up to ``later_max``, at most ``later_rounds`` times (then
    #: it is left out until it is submitted again).
    later: float | None = None
    later_max: float = 600.0
    later_rounds: int = 5
    #: What the notice says of a game left out after ``later_rounds`` waits.
    left_out: str = "until it is submitted again"
    #: Whether a game that raised in its worker is done again like one lost with it (else the
    #: error is raised from :meth:`Dispatcher.poll`).
    retry_errors: bool = False
    #: Most games in a unit of work, and in the first units.
    batch: int = 1
    first: int = 1
    #: Units of work in flight per worker (2: one waits queued, so no worker idles while this
    #: process stores the last one's results).
    depth: int = 1


def run_policy(batch: int, first: int, stateful: bool) -> Policy:
    """``run``'s policy: a lost batch played once more, isolated, then :class:`WorkerLost`; a
    second batch queued per worker unless a stateful bot plays (it is in one batch at a time)."""
    return Policy(retries=1, isolate=True, later=None, batch=batch, first=first, depth=1 if stateful else 2)


#: The host's policy: one game at a time; a game lost (or failed) is tried twice more at once,
#: then put off 30 s, doubling up to 10 minutes, five times; then left until it is next scheduled.
HOST = Policy(retries=2, isolate=False, later=30.0, later_max=600.0, later_rounds=5, retry_errors=True,
              left_out="until the schedule next changes (a submission, a restart)")


class WorkerLost(RuntimeError):
    """A worker died while playing games that were already being played again after one had."""

    def __init__(self, batches: list[list[GameTask]]) -> None:
        games = [t for batch in batches for t in batch]
        shown = ", ".join(f"#{t.index} {' vs '.join(b.name for b in t.players)}" for t in games[:5])
        more = f" and {len(games) - 5} more" if len(games) > 5 else ""
        super().__init__(f"a worker died twice while playing games {shown}{more}")
        self.tasks = games


class Lost(RuntimeError):
    """Work (a build, a check) lost with its worker more often than its policy tries it again."""


@attrs.frozen
class Done:
    """A finished unit of work: games (``tasks`` and their ``results``: journal rows or records)
    or other work (``work``, as submitted, and its ``value``, or the ``error`` it raised)."""

    key: Hashable
    tasks: list[GameTask] = attrs.field(factory=list)
    results: list[Any] = attrs.field(factory=list)
    work: Any = None
    value: Any = None
    error: BaseException | None = None


@attrs.define(eq=False)
class _Unit:
    key: Hashable
    tasks: list[GameTask] = attrs.field(factory=list)
    level: int = 1
    work: Any = None
    #: Other work: starts it on the executor (None: nothing to do after all).
    start: Callable[[Executor], cf.Future[Any] | None] | None = None
    started: float = 0.0
    generation: int = 0
    replay: bool = False

    def names(self) -> list[str]:
        return [b.name for t in self.tasks for b in t.players]


@attrs.define(eq=False)
class _Lane:
    """One owner's queue (a challenge's): work, then games in two levels (first, rest)."""

    key: Hashable
    stateful: frozenset[str] = frozenset()
    pondering: bool | None = None
    work: deque[_Unit] = attrs.field(factory=deque)
    levels: tuple[deque[GameTask], deque[GameTask]] = attrs.field(factory=lambda: (deque(), deque()))
    #: Stateful bots in a unit of work in flight.
    busy: set[str] = attrs.field(factory=set)
    #: Games put off: id -> (monotonic time they are due, the game, its level).
    later: dict[str, tuple[float, GameTask, int]] = attrs.field(factory=dict)


def _pick(queue: deque[GameTask], size: int, stateful: frozenset[str] | set[str], busy: set[str],
          look: int = LOOK_AHEAD) -> list[GameTask]:
    """Take up to ``size`` startable games from ``queue`` (in order, looking at most ``look`` deep):
    none whose stateful bot is busy or has an earlier game left waiting.  Adds the picked games'
    stateful bots to ``busy``."""
    if not stateful:
        return [queue.popleft() for _ in range(min(size, len(queue)))]
    picked: list[GameTask] = []
    kept: list[GameTask] = []
    blocked: set[str] = set()
    while queue and len(picked) < size and len(kept) < look:
        t = queue.popleft()
        names = {b.name for b in t.players} & stateful
        if names & (busy | blocked):
            blocked |= names  # its later games wait for this one: schedule order
            kept.append(t)
            continue
        picked.append(t)
        busy |= names
    queue.extendleft(reversed(kept))
    return picked


class Dispatcher:
    """Keeps ``executor`` busy with the work submitted to its lanes (see the module's text).

    ``rows``: games come back as journal rows (else records).  ``on_notice(text)`` hears of work
    done again or put off; ``on_change(key)`` of a lane whose games started or were queued again;
    ``due(key, task)`` says whether a game put off is still wanted when its wait is over.
    The executor may be set later (:attr:`executor`: the host makes its slots when it starts).
    """

    def __init__(self, executor: Executor | None, policy: Policy, *, rows: bool = True,
                 on_notice: Callable[[str], None] | None = None,
                 on_change: Callable[[Hashable], None] | None = None,
                 due: Callable[[Hashable, GameTask], bool] | None = None) -> None:
        import threading

        self.executor = executor
        self.policy = policy
        self.rows = rows
        self._notice = on_notice or (lambda text: None)
        self._on_change = on_change or (lambda key: None)
        self._due = due
        self._lock = threading.RLock()
        self._lanes: dict[Hashable, _Lane] = {}
        self._turn = 0
        self._inflight: dict[cf.Future[Any], _Unit] = {}
        #: Units lost with their worker, to be done again before anything else.
        self._again: deque[_Unit] = deque()
        #: Times each game (by id) or work was lost in a row, and times each game was put off.
        self._tries: dict[Any, int] = {}
        self._waits: dict[str, int] = {}
        #: Bots that lost by a fault a game played again (isolate): played isolated from now on.
        self.suspects: set[str] = set()
        self._size = max(1, min(policy.batch, policy.first))
        self._ended = False

    # -- what the owner submits ----------------------------------------------------------------
    def lane(self, key: Hashable, *, stateful: Iterable[str] = (), pondering: bool | None = None) -> None:
        """Make (or set again) lane ``key``: its stateful bots, and whether its game ponders."""
        with self._lock:
            lane = self._lanes.setdefault(key, _Lane(key))
            lane.stateful, lane.pondering = frozenset(stateful), pondering

    def submit(self, tasks: Iterable[GameTask], key: Hashable = None, *, first: bool = False) -> None:
        """Queue ``tasks`` in lane ``key``, after those queued (``first``: before any lane's others)."""
        with self._lock:
            self._lane(key).levels[0 if first else 1].extend(tasks)

    def replace(self, key: Hashable, first: Iterable[GameTask], rest: Iterable[GameTask],
                stateful: Iterable[str] | None = None) -> None:
        """Lane ``key``'s queued games are these now (a new schedule); games in flight or put off
        are kept (leave them out of ``first`` and ``rest``: :meth:`taken`)."""
        with self._lock:
            lane = self._lane(key)
            lane.levels = (deque(first), deque(rest))
            if stateful is not None:
                lane.stateful = frozenset(stateful)

    def submit_work(self, key: Hashable, work: Any, start: Callable[[Executor], cf.Future[Any] | None], *,
                    front: bool = False) -> None:
        """Queue other work (a build, a check) in lane ``key``, before its games: ``start(executor)``
        starts it (None: nothing to do after all); :meth:`poll` gives back ``work`` with its value."""
        unit = _Unit(key, work=work, start=start)
        with self._lock:
            q = self._lane(key).work
            q.appendleft(unit) if front else q.append(unit)

    def drop(self, bots: set[str], key: Hashable = None) -> int:
        """Take out the queued and put-off games of ``bots`` in lane ``key`` (a bot replaced: its
        games are not played); how many were dropped.  Games in flight finish."""
        with self._lock:
            lane = self._lane(key)
            before = sum(map(len, lane.levels)) + len(lane.later)
            lane.levels = tuple(deque(t for t in q if bots.isdisjoint(b.name for b in t.players))  # type: ignore[assignment]
                                for q in lane.levels)
            for gid in [gid for gid, (_, t, _) in lane.later.items() if not bots.isdisjoint(b.name for b in t.players)]:
                del lane.later[gid]
            return before - sum(map(len, lane.levels)) - len(lane.later)

    def clear(self, key: Hashable = None) -> None:
        """Drop every game queued in lane ``key`` (a match its SPRT decided)."""
        with self._lock:
            lane = self._lane(key)
            lane.levels = (deque(), deque())

    def drop_work(self, key: Hashable) -> None:
        """Drop the work queued in lane ``key`` (its owner reads again what is to be done)."""
        with self._lock:
            self._lane(key).work.clear()

    def end(self) -> None:
        """No more games will be submitted: the last batches are smaller, shared among the workers."""
        self._ended = True

    # -- what the owner reads ------------------------------------------------------------------
    def queued(self, key: Hashable = None) -> int:
        """Games queued in lane ``key`` (not in flight, not put off)."""
        with self._lock:
            return sum(map(len, self._lane(key).levels))

    def queue(self, key: Hashable = None, level: int | None = None) -> list[GameTask]:
        """Lane ``key``'s queued games in order (``first`` ones then the others, or one ``level``)."""
        with self._lock:
            lane = self._lane(key)
            return [t for i, q in enumerate(lane.levels) if level in (None, i) for t in q]

    def take(self, key: Hashable = None) -> GameTask | None:
        """The next game lane ``key`` would start, taken out of its queue, for its owner to play
        itself (its stateful bots are not marked busy); None if none can start."""
        with self._lock:
            lane = self._lane(key)
            for q in lane.levels:
                picked = _pick(q, 1, lane.stateful, set(lane.busy))
                if picked:
                    return picked[0]
            return None

    def work(self, key: Hashable) -> list[Any]:
        """Lane ``key``'s other work queued, as submitted."""
        with self._lock:
            return [u.work for u in self._lane(key).work]

    def running_work(self, key: Hashable) -> int:
        """Lane ``key``'s other work in flight."""
        with self._lock:
            return sum(1 for u in self._inflight.values() if u.key == key and u.start is not None)

    def inflight(self, key: Hashable = None) -> dict[str, GameTask]:
        """Lane ``key``'s games in flight (or being played again), by id."""
        with self._lock:
            units = [*self._inflight.values(), *self._again]
            return {t.id: t for u in units if u.key == key for t in u.tasks}

    def later(self, key: Hashable = None) -> dict[str, tuple[float, GameTask]]:
        """Lane ``key``'s games put off: id -> (seconds until they are queued again, the game)."""
        now = time.monotonic()
        with self._lock:
            return {gid: (max(0.0, at - now), t) for gid, (at, t, _) in self._lane(key).later.items()}

    def taken(self, key: Hashable = None) -> set[str]:
        """The ids of lane ``key``'s games in flight or put off (not to be submitted again)."""
        with self._lock:
            return set(self.inflight(key)) | set(self._lane(key).later)

    @property
    def running(self) -> int:
        """Units of work in flight."""
        return len(self._inflight) + len(self._again)

    def forget(self) -> None:
        """The executor was closed: work in flight is gone (its owner submits it again)."""
        with self._lock:
            self._inflight.clear()
            self._again.clear()
            for lane in self._lanes.values():
                lane.busy.clear()

    # -- the work ------------------------------------------------------------------------------
    def poll(self, timeout: float | None = None) -> list[Done]:
        """Start what can start, wait up to ``timeout`` seconds (None: until something finishes)
        and give back what finished; games lost are done again as the policy says.  Empty at once
        with nothing in flight."""
        self._release()
        self._fill()
        if not self._inflight:
            return []
        done = self._wait(cf.FIRST_COMPLETED, timeout)
        if self.policy.isolate and any(isinstance(f.exception(), BrokenProcessPool) for f in done):
            # A worker died, and the pool with it: every batch in flight ends now, some perhaps
            # finished.  Keep those; play the others again.
            done = self._wait(cf.ALL_COMPLETED, None)
        return self._collect(done)

    def _wait(self, when: str, timeout: float | None) -> set[cf.Future[Any]]:
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            left = LOOK_EVERY if end is None else min(LOOK_EVERY, max(0.0, end - time.monotonic()))
            done, pending = cf.wait(list(self._inflight), timeout=left, return_when=when)
            if done and (when == cf.FIRST_COMPLETED or not pending):
                return done
            if end is not None and time.monotonic() >= end:
                return done if when == cf.FIRST_COMPLETED else set()
            # A look at the workers meanwhile (a cluster's: see LOOK_EVERY).
            assert self.executor is not None
            self.executor.capacity()

    def _fill(self) -> None:
        pool = self.executor
        if pool is None:
            return
        while True:
            with self._lock:
                if len(self._inflight) >= pool.capacity() * self.policy.depth:
                    return
                unit = self._next()
                if unit is None:
                    return
            try:
                if unit.start is not None:
                    fut = unit.start(pool)
                    if fut is None:
                        continue
                else:
                    lane = self._lanes[unit.key]
                    fut = pool.play(unit.tasks, self.rows, lane.pondering)
            except RuntimeError:  # closed: its owner is stopping
                with self._lock:
                    self._put_back(unit)
                return
            unit.started, unit.generation = time.monotonic(), pool.generation
            with self._lock:
                self._inflight[fut] = unit
            if unit.tasks:
                self._on_change(unit.key)

    def _put_back(self, unit: _Unit) -> None:
        lane = self._lanes[unit.key]
        lane.busy.difference_update(unit.names())
        if unit.start is not None:
            lane.work.appendleft(unit)
        elif unit.replay:
            self._again.appendleft(unit)
        else:
            lane.levels[unit.level].extendleft(reversed(unit.tasks))

    def _next(self) -> _Unit | None:
        """The next unit of work to start (with the lock held), or None."""
        if self._again:
            unit = self._again.popleft()
            self._lanes[unit.key].busy.update(set(unit.names()) & self._lanes[unit.key].stateful)
            return unit
        if self.policy.isolate and any(u.replay for u in self._inflight.values()):
            return None  # a worker that dies now died of one of the games played again
        lanes = list(self._lanes.values())
        n = len(lanes)
        for k in range(n):
            i = (self._turn + k) % n
            if lanes[i].work:
                self._turn = i + 1
                return lanes[i].work.popleft()
        for level in (0, 1):
            for k in range(n):
                i = (self._turn + k) % n
                lane = lanes[i]
                picked = _pick(lane.levels[level], self._take(lane.levels[level]), lane.stateful, lane.busy)
                if picked:
                    self._turn = i + 1
                    if self.suspects:
                        picked = [t.isolated() if self.suspects.intersection(b.name for b in t.players) else t
                                  for t in picked]
                    return _Unit(lane.key, picked, level)
        return None

    def _take(self, queue: deque[GameTask]) -> int:
        size = self._size
        jobs = self.executor.capacity() if self.executor is not None else 1
        if self._ended and jobs > 1:
            # The last games: smaller batches, so that no worker sits idle while another plays a
            # long final batch (guided self-scheduling).
            size = min(size, -(-len(queue) // (2 * jobs)))
        return max(1, size)

    def _collect(self, done: set[cf.Future[Any]]) -> list[Done]:
        out: list[Done] = []
        lost: list[_Unit] = []
        failed: list[_Unit] = []
        for fut in done:
            with self._lock:
                unit = self._inflight.pop(fut)
                self._lanes[unit.key].busy.difference_update(unit.names())
            try:
                value = fut.result()
            except (BrokenProcessPool, cf.CancelledError):
                lost.append(unit)
                continue
            except Exception as e:  # noqa: BLE001 - work that failed in its worker
                if unit.start is not None:
                    out.append(Done(unit.key, work=unit.work, error=e))
                    continue
                if not self.policy.retry_errors:
                    raise
                self._notice(f"{self._where(unit)}game {unit.tasks[0].id} could not be played: {e!r}")
                failed.append(unit)
                continue
            if unit.start is not None:
                self._tries.pop(("work", id(unit)), None)
                out.append(Done(unit.key, work=unit.work, value=value))
                continue
            results, played = value
            if not results and self.policy.retry_errors:
                self._notice(f"{self._where(unit)}game {unit.tasks[0].id} could not be played: no result")
                failed.append(unit)
                continue
            if unit.replay:
                self._suspect(results)
            for t in unit.tasks:
                self._tries.pop(t.id, None)
            self._resize(len(unit.tasks), played or time.monotonic() - unit.started)
            out.append(Done(unit.key, tasks=unit.tasks, results=results))
        if lost:
            pool = self.executor
            if pool is not None and any(u.generation == pool.generation for u in lost):
                games = all(u.start is None for u in lost)
                n = sum(len(u.tasks) or 1 for u in lost)
                self._notice(f"a worker died: {n} games in flight are played again, their bots isolated"
                             if self.policy.isolate else
                             f"a worker died: {n} {'games' if games else 'games or builds'} in flight are done again")
                pool.restart()
        gave_up = self._again_or_later([*lost, *failed])
        out.extend(gave_up)
        return out

    def _again_or_later(self, units: list[_Unit]) -> list[Done]:
        """Do ``units`` again (their tries counted), or give up on them as the policy says: the
        work given up, for its owner."""
        out: list[Done] = []
        raised: list[list[GameTask]] = []
        changed: set[Hashable] = set()
        with self._lock:
            for unit in units:
                key = ("work", id(unit)) if unit.start is not None else None
                if key is not None:
                    tries = self._tries[key] = self._tries.get(key, 0) + 1
                else:
                    for t in unit.tasks:
                        self._tries[t.id] = self._tries.get(t.id, 0) + 1
                    tries = max(self._tries[t.id] for t in unit.tasks)
                if tries <= self.policy.retries:
                    if unit.start is not None:
                        self._lanes[unit.key].work.appendleft(unit)
                    elif self.policy.isolate:
                        self._again.append(_Unit(unit.key, [t.isolated() for t in unit.tasks], unit.level,
                                                 replay=True))
                    else:
                        self._lanes[unit.key].levels[unit.level].extendleft(reversed(unit.tasks))
                    changed.add(unit.key)
                elif unit.start is not None:
                    self._tries.pop(key, None)
                    out.append(Done(unit.key, work=unit.work,
                                    error=Lost(f"it ended its worker {tries} times")))
                elif self.policy.later is None:
                    raised.append(unit.tasks)
                else:
                    for t in unit.tasks:
                        self._put_off(unit, t, self._tries.pop(t.id, tries))
                    changed.add(unit.key)
        if raised:
            raise WorkerLost(raised)
        for lane in changed:
            self._on_change(lane)
        return out

    def _put_off(self, unit: _Unit, task: GameTask, tries: int) -> None:
        """``task`` failed ``tries`` times in a row: it waits, and is then queued again by
        :meth:`_release`, unless it was put off ``later_rounds`` times already (with the lock held)."""
        assert self.policy.later is not None
        waits = self._waits.get(task.id, 0)
        what = (f"{self._where(unit)}game {task.id} ({' vs '.join(b.name for b in task.players)}) "
                f"failed {tries} times")
        if waits >= self.policy.later_rounds:
            self._notice(f"{what}: left unplayed {self.policy.left_out}")
            return
        delay = min(self.policy.later * 2 ** waits, self.policy.later_max)
        self._waits[task.id] = waits + 1
        self._lanes[unit.key].later[task.id] = (time.monotonic() + delay, task, unit.level)
        self._notice(f"{what}: tried again in {delay:g} s")

    def _release(self) -> None:
        """Queue again, first in line, the games put off whose wait is over and still wanted."""
        now = time.monotonic()
        for lane in list(self._lanes.values()):
            with self._lock:
                due = [(gid, t, level) for gid, (at, t, level) in lane.later.items() if at <= now]
                for gid, _, _ in due:
                    del lane.later[gid]
            if not due:
                continue
            wanted = [(t, level) for _, t, level in due if self._due is None or self._due(lane.key, t)]
            with self._lock:
                playing = self.inflight(lane.key)
                for t, level in wanted:
                    if t.id not in playing:
                        lane.levels[level].appendleft(t)
            self._on_change(lane.key)

    def _suspect(self, results: Sequence[Any]) -> None:
        """A bot that lost by a fault where a worker died is played isolated from now on, rather
        than have it end a worker (and a pool) a batch at a time."""
        if self.rows:  # kothkit.store.journal.GameRow: the games table's columns
            faulted = {r.fault for r in results if r.verdict in _ENDS_WORKERS}
        else:
            faulted = {r.offender for r in results if r.verdict in _ENDS_WORKERS}
        faulted -= self.suspects
        faulted.discard(None)
        if faulted:
            self.suspects.update(faulted)
            self._notice(f"{', '.join(sorted(faulted))} lost by a fault where a worker died: "
                         f"played isolated from now on")

    def _resize(self, n: int, took: float) -> None:
        target = self.executor.batch_seconds if self.executor is not None else 1.0
        if took < target / 2 and n == self._size:
            self._size = min(self.policy.batch, self._size * 2)
        elif took > target * 2:
            self._size = max(1, self._size // 2)

    def wind_down(self, seconds: float) -> list[Done]:
        """After Ctrl-C (the workers told to hand back what they finished): the games that come
        back within ``seconds``; the rest are dropped."""
        end = time.monotonic() + seconds
        out: list[Done] = []
        waiting = set(self._inflight)
        while waiting:
            done, waiting = cf.wait(waiting, timeout=max(0.0, end - time.monotonic()), return_when=cf.FIRST_COMPLETED)
            for fut in done:
                unit = self._inflight.pop(fut)
                if not fut.cancelled() and fut.exception() is None and unit.start is None:
                    out.append(Done(unit.key, tasks=unit.tasks, results=fut.result()[0]))
            if time.monotonic() >= end:
                break
        return out

    def _lane(self, key: Hashable) -> _Lane:
        lane = self._lanes.get(key)
        if lane is None:
            lane = self._lanes[key] = _Lane(key)
        return lane

    @staticmethod
    def _where(unit: _Unit) -> str:
        return "" if unit.key is None else f"{unit.key}: "
