"""Tournaments: the schedule played through the referee, results committed to the journal.

Games run in ``jobs`` worker processes (``jobs == 1`` plays them in this
process).  Each worker owns one CPU slot and runs there with its games' bots,
so concurrent games never compete for a core, and a bot's reply wakes the
referee on the bot's own core (on a VM, a wake-up on another core measured
50-80 us a round trip, against under 20 us on the same core).  The cores are
claimed (:mod:`kothkit.procs.cores`), so that judges on one machine spread over its
cores instead of sharing the first ones.  Finished games are
committed as they arrive (games of function bots, which take microseconds, as
batches of journal rows made by the workers); games already in the journal
with the same id are reused, not replayed, which is what makes resume and
incremental re-runs work.  Standings are tallied from the games as they are
stored or found.
Stateful bots never play two games at once and see their games in schedule
order, so results do not depend on ``jobs``.
"""

from __future__ import annotations

import concurrent.futures as cf
import gc
import itertools
import json
import multiprocessing
import multiprocessing.util
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import attrs

from kothkit.bots import overtime
from kothkit.bots.build import build
from kothkit.bots.folders import BotError, BotSpec, journal_entry
from kothkit.bots.functions import capture_output, release_output
from kothkit.game import GameInfo, Verdict
from kothkit.limits import Limits
from kothkit.playing.schedule import Schedule, settings_of
from kothkit.plugins import game_code
from kothkit.procs.contain import fair_cpu
from kothkit.procs.cores import claim as claim_cores
from kothkit.scoring import Standing, Tally
from kothkit.store.journal import GameRow, Journal, result_of
from kothkit.store.ratings import PairTally, Ratings
from kothkit.store.records import GameRecord, GameResult, GameTask

#: Most games per unit of work when every bot is a function bot (games take microseconds).
FAST_BATCH = 1000
#: Most games per unit of work with program bots.  Their batches start at one game (a game may
#: take minutes) and grow towards BATCH_SECONDS like any other: a game of instant bots is short,
#: and sending each alone costs the judge a future, a wake-up and a row stored alone, on a core
#: its workers need.
PROGRAM_BATCH = 64
#: Batches grow or shrink towards taking this many seconds (see :func:`dispatch`).
BATCH_SECONDS = 0.1

#: This worker's core, or its cores (one per seat: a game that allows pondering).
#: A job's core slot: its core, or with two cores a job (pondering) one for each seat.
CoreSlot = int | tuple[int, ...]
_CPU: CoreSlot | None = None
_HOSTS = None
#: Set by the first Ctrl-C (SIGINT, see :func:`_on_interrupt`): no game starts after it.
_STOP = [False]
#: Above 0 while an interrupt must not raise here (the judge storing games, a worker between
#: batches); it is then acted on where that ends.
_CALM = [0]


def _on_interrupt(signum, frame) -> None:
    """SIGINT in the judge and its workers: stop; the game being played is cut short.

    Only the first one counts (a second Ctrl-C must neither be needed nor break the clean-up)."""
    if _STOP[0]:
        return
    _STOP[0] = True
    if not _CALM[0]:
        raise KeyboardInterrupt


def _pin_self(cpu: int) -> set[int] | None:
    """Pin this thread to ``cpu``: the affinity it had, or None where the machine refuses
    (pinning is for speed and fair timing; a game plays the same without it)."""
    try:
        free = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {cpu})
        return free
    except OSError:
        return None


def _init_worker(counter, cores: Sequence[CoreSlot] | None, judge: int) -> None:
    """A pool worker's start (``judge``: the judge's pid, read before the fork)."""
    global _CPU
    # If the judge dies, its workers get SIGTERM and leave at once: every bot and function host
    # runs under a jail init that dies with its parent (the worker), taking the bot with it.
    # Unwinding instead could hang in the pool's exit handlers, with nobody left to read.
    # Armed first, then the parent checked: a judge that died between the fork and the arming
    # sent no signal, and its worker would wait for tasks forever.
    die_with(judge)
    with counter.get_lock():
        slot = counter.value
        counter.value += 1
    if cores:
        _CPU = cores[slot % len(cores)]
        _pin_self(_CPU[0] if isinstance(_CPU, tuple) else _CPU)
    # A trusted bot that swallows every interruption past its time ends this worker; the
    # judge plays the worker's games again with their bots isolated.
    overtime.give_up = lambda: os._exit(70)
    import signal

    signal.signal(signal.SIGTERM, lambda *_: os._exit(143))
    # Ctrl-C reaches the workers (from the terminal, or forwarded by the judge): a worker cuts
    # its game short and hands back the games of its batch that finished (see play_batch).
    _STOP[0] = False
    _CALM[0] = 1
    signal.signal(signal.SIGINT, _on_interrupt)
    # A worker that ends normally stops its function hosts and removes their cgroups; one that
    # is killed leaves them to the judge's sweep (kothkit.procs.contain.sweep_cgroups).
    multiprocessing.util.Finalize(None, close_hosts, exitpriority=10)


def die_with(parent: int) -> None:
    """Make this process (a pool worker) get SIGTERM when ``parent`` (its pid, read before the
    fork) dies, and leave at once if it is dead already."""
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass
    # Checked after arming: a parent that died between the fork and the arming sent no signal.
    if os.getppid() != parent:
        os._exit(143)


def play_batch(tasks: Sequence[GameTask], cpu: CoreSlot | None = None, rows: bool = False) -> list:
    """Play ``tasks`` in order in this process (the worker-side unit of work).

    Returns their records, or with ``rows`` their journal rows (see
    :func:`kothkit.store.journal.row_of`): a tournament's judge then only inserts
    them, instead of unpickling and encoding thousands of records a second.
    """
    from kothkit.playing.referee import play_game
    from kothkit.playing.seats import HostPool
    from kothkit.store.journal import row_of

    global _HOSTS
    if _HOSTS is None:
        _HOSTS = HostPool()
        # Once a process, before its first games: what start-up made (modules, classes, plugins,
        # bots) lives to the end, so the collector's older generations need not walk it again
        # and again while games allocate (gc.freeze; a forked worker's pages stay shared too).
        gc.freeze()
    cpu = _CPU if cpu is None else cpu
    # What trusted function bots print goes to their logs: the streams are swapped once a batch
    # (swapping sys.stdout costs about a microsecond, a good part of a game of microseconds).
    saved = capture_output() if tasks and tasks[0].trusted else None
    # Ctrl-C cuts the game in play short (its bots are killed) and ends the batch: the games
    # that finished are returned, to be stored, and none starts after it.
    records = []
    calm, _CALM[0] = _CALM[0], 0
    try:
        for t in tasks:
            if _STOP[0]:
                break
            records.append(play_game(t, cpu=cpu, hosts=_HOSTS))
    except KeyboardInterrupt:
        _STOP[0] = True
    finally:
        _CALM[0] = calm
        release_output(saved)
    return [row_of(r) for r in records] if rows else records


def close_hosts() -> None:
    global _HOSTS
    if _HOSTS is not None:
        _HOSTS.close()
        _HOSTS = None


class _Inline:
    """An executor that runs each submitted batch at once, in this process."""

    def __init__(self, cpu: CoreSlot | None):
        self.cpu = cpu

    def submit(self, fn, *args, **kwargs):
        f: cf.Future = cf.Future()
        free = None if self.cpu is None else _pin_self(self.cpu[0] if isinstance(self.cpu, tuple) else self.cpu)
        try:
            f.set_result(fn(*args, cpu=self.cpu, **kwargs))
        except Exception as e:  # re-raised by the caller's .result(); an interrupt goes on now
            f.set_exception(e)
        finally:
            if free is not None:
                os.sched_setaffinity(0, free)
        return f

    def shutdown(self, wait=True, cancel_futures=False):
        close_hosts()


def make_pool(jobs: int, cores: Sequence[CoreSlot] | None):
    """Where games run: this process for one job, else ``jobs`` workers, each owning a core slot.

    With ``cores`` (job slot -> core, see :func:`kothkit.procs.cores.claim`) the process playing a
    job is pinned to the job's core (one job: only this thread, only while it plays, so the
    journal's checkpoint thread stays free), and so are its bots.
    """
    if jobs <= 1:
        return _Inline(cores[0] if cores else None)
    ctx = multiprocessing.get_context("fork")
    return cf.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_init_worker,
                                  initargs=(ctx.Value("i", 0), cores, os.getpid()))


def dispatch(tasks: Iterable[GameTask], *, jobs: int, pin_cpu: bool, stateful: set[str], batch: int = 1,
             on_done: Callable[[list[GameTask], list], None], rows: bool = False,
             on_notice: Callable[[str], None] | None = None, cores_per_job: int = 1,
             stop: Callable[[], bool] | None = None, pool=None, first: int = 8) -> None:
    """Play ``tasks`` (consumed lazily, in schedule order) on ``jobs`` workers, in batches of
    up to ``batch`` games (the first of up to ``first``); ``on_done(tasks, records)`` gets each
    finished batch, in this process
    (journal rows instead of records with ``rows``).

    Batches start small and grow while they take less than :data:`BATCH_SECONDS`, so
    that games of microseconds are stored hundreds at a time (one transaction each)
    and a small tournament is still shared among all workers.

    A stateful bot is in at most one running batch, and its games start in schedule order:
    a task waits while an earlier task of the same stateful bot has not started.

    A worker that dies (a trusted function bot that called ``os._exit`` or would not stop
    past its time, the kernel's OOM killer...) takes the batches in flight with it.  Their
    games are played again in a new pool, alone, their function bots isolated in hosts of
    their own, where such a bot loses its game with ``crash`` or ``timeout`` (for
    deterministic bots, the same games as trusted otherwise), and a bot that does is
    played isolated from then on.  Should a worker die
    during that replay too, :class:`WorkerLost`.  ``on_notice(text)`` hears of both.

    Once ``stop()`` is true (asked after each finished batch), no further game starts: the
    batches in flight finish and are handed to ``on_done`` (a match that its SPRT decided).

    ``pool``: where batches run instead of a pool of ``jobs`` local workers (a
    :class:`kothkit.playing.cluster.ClusterPool`; ``jobs`` is then its number of workers).  It is not
    replaced when a batch reports a dead worker, only its unfinished batches cancelled at the end.
    """
    notice = on_notice or (lambda text: None)
    claimed = claim_cores(jobs * cores_per_job) if pin_cpu else None
    shared = sorted(set(claimed.cores) - set(claimed.held)) if claimed is not None else []
    if shared and claimed is not None:
        # Bots that share a core lose time to each other: the host should know.
        notice(f"jobs on cores {claimed.cores}: another judge also plays on cores {shared} "
               f"(fewer jobs, or one judge at a time, keep move times fair)")
    slots = None
    if claimed is not None:
        # With two cores a job (pondering), a job's seats get one each: (seat 0's, seat 1's).
        slots = (claimed.cores if cores_per_job == 1 else
                 [tuple(claimed.cores[i * cores_per_job:(i + 1) * cores_per_job]) for i in range(jobs)])
    given = pool
    target = getattr(given, "batch_seconds", BATCH_SECONDS)
    pool = given if given is not None else make_pool(jobs, slots)
    pending = iter(tasks)
    window: deque[GameTask] = deque()
    busy: set[str] = set()
    inflight: dict[cf.Future, tuple[list[GameTask], float]] = {}
    window_size = max(64, jobs * batch * 4)
    size = max(1, min(batch, first))
    # Without stateful bots a second batch per worker waits queued, so that no worker
    # idles while this process stores the last one's results.  This process plays none itself:
    # it would then store results late.
    depth = max(jobs, 1) * (1 if stateful else 2)
    exhausted = False
    # After a worker died: the batches being played again, the ids of every game replayed, and
    # the bots that lost them by a fault.
    replaying: set[cf.Future] = set()
    replayed: set[str] = set()
    suspects: set[str] = set()
    interrupts = _catch_interrupts()
    try:
        while True:
            if _STOP[0]:
                raise KeyboardInterrupt  # Ctrl-C while this process played a batch or stored one
            if stop is not None and not exhausted and stop():
                exhausted = True
                window.clear()
            while not exhausted and len(window) < window_size:
                t = next(pending, None)
                if t is None:
                    exhausted = True
                else:
                    window.append(t)
            while len(inflight) < depth and window and not replaying:
                if stateful:
                    picked = _pick(window, size, stateful, busy)
                    if not picked:
                        break
                else:
                    take = size
                    if exhausted and jobs > 1:
                        # The last games: smaller batches, so that no worker sits idle while
                        # another plays a long final batch (guided self-scheduling).
                        take = min(size, -(-len(window) // (2 * jobs)))
                    picked = [window.popleft() for _ in range(min(take, len(window)))]
                if suspects:
                    picked = [_isolated(t) if suspects.intersection(b.name for b in t.players) else t
                              for t in picked]
                inflight[_submit(pool, picked, rows)] = (picked, time.monotonic())
            if not inflight:
                break  # nothing running and nothing startable: with nothing busy, that means done
            done, _ = cf.wait(list(inflight), return_when=cf.FIRST_COMPLETED)
            if any(isinstance(f.exception(), BrokenProcessPool) for f in done):
                # A worker died, and the pool with it: every batch in flight ends now, some
                # perhaps finished.  Keep those; play the others again.
                done = cf.wait(list(inflight))[0]
            lost: list[list[GameTask]] = []
            _CALM[0] += 1  # games being stored are stored whole; Ctrl-C is acted on above, after
            for fut in done:
                picked, started = inflight.pop(fut)
                if isinstance(fut.exception(), BrokenProcessPool):
                    lost.append(picked)
                    continue
                records, played = _outcome(fut)
                if fut in replaying:
                    # A bot that lost by a fault where a worker died is played isolated from
                    # now on, rather than have it end a worker (and a pool) a batch at a time.
                    replaying.discard(fut)
                    faulted = _faulted(records, rows) - suspects
                    if faulted:
                        suspects.update(faulted)
                        notice(f"{', '.join(sorted(faulted))} lost by a fault where a worker died: "
                               f"played isolated from now on")
                if stateful:
                    for t in picked:
                        busy.difference_update(b.name for b in t.players)
                on_done(picked, records)
                # How long the batch played, as its worker measured it (a cluster's round trip
                # costs milliseconds; a batch queued behind another would show about twice its
                # time): measured from submission only where nobody measured it.
                took = played or time.monotonic() - started
                if took < target / 2 and len(picked) == size:
                    size = min(batch, size * 2)
                elif took > target * 2:
                    size = max(1, size // 2)
            _CALM[0] -= 1
            if lost:
                if replayed.intersection(t.id for games in lost for t in games):
                    raise WorkerLost(lost)
                notice(f"a worker died: {sum(map(len, lost))} games in flight are played again, "
                       f"their bots isolated")
                if given is None:
                    pool.shutdown(wait=True)
                    pool = make_pool(jobs, slots)
                # Nothing else starts until these are played: a worker that dies now died
                # of one of them.
                for games in lost:
                    again = [_isolated(t) for t in games]
                    replayed.update(t.id for t in again)
                    fut = _submit(pool, again, rows)
                    inflight[fut] = (again, time.monotonic())
                    replaying.add(fut)
    except KeyboardInterrupt:
        _wind_down(pool, inflight, on_done)
        raise
    finally:
        _CALM[0] = 0
        pool.shutdown(wait=True, cancel_futures=True)
        if claimed is not None:
            claimed.release()
        if jobs > 1:
            # The cgroups of workers that were killed (Ctrl-C, a dead worker's pool) go now,
            # not at the next judge's start.
            from kothkit.procs.contain import sweep_cgroups

            sweep_cgroups()
        if interrupts is not None:
            signal.signal(signal.SIGINT, interrupts)


#: Seconds the workers get, after Ctrl-C, to hand back the games they finished before they are killed.
WIND_DOWN = 0.5


def _catch_interrupts():
    """Take SIGINT over for a tournament (see :func:`_on_interrupt`); the handler it replaced,
    or None where this is not the main thread (signals are then not ours to take)."""
    _STOP[0] = False
    _CALM[0] = 0
    if threading.current_thread() is not threading.main_thread():
        return None
    try:
        return signal.signal(signal.SIGINT, _on_interrupt)
    except ValueError:  # pragma: no cover - not the main interpreter
        return None


def _wind_down(pool, inflight: dict, on_done: Callable[[list[GameTask], list], None]) -> None:
    """After Ctrl-C: store every game that finished, and kill the rest.

    Each worker gets SIGINT (the terminal sends it one too; a second is ignored): it cuts its
    game short and hands back its batch's finished games, which are stored as they come for
    :data:`WIND_DOWN` seconds.  Then the workers are killed, and their bots with them.
    """
    _STOP[0] = True
    procs = list((getattr(pool, "_processes", None) or {}).values())
    for proc in procs:
        try:
            os.kill(proc.pid, signal.SIGINT)
        except OSError:
            pass
    end = time.monotonic() + WIND_DOWN
    waiting = set(inflight)
    while waiting:
        done, waiting = cf.wait(waiting, timeout=max(0.0, end - time.monotonic()),
                                return_when=cf.FIRST_COMPLETED)
        for fut in done:
            picked, _ = inflight.pop(fut)
            if not fut.cancelled() and fut.exception() is None:
                on_done(picked, _outcome(fut)[0])
        if time.monotonic() >= end:
            break
    for proc in procs:
        try:
            proc.kill()
        except OSError:
            pass


def _played_batch(tasks: Sequence[GameTask], rows: bool) -> tuple[list, float]:
    """:func:`play_batch` in a local worker, with the seconds it played (see :func:`_outcome`)."""
    t0 = time.perf_counter()
    out = play_batch(tasks, rows=rows)
    return out, time.perf_counter() - t0


def _outcome(fut: cf.Future) -> tuple[list, float | None]:
    """A finished batch's records (or rows) and the seconds it played, where its worker said."""
    result = fut.result()
    if isinstance(result, tuple):  # a local worker's (see _played_batch)
        return result
    return result, getattr(fut, "played", None)  # a cluster's future says on itself


def _submit(pool, tasks: list[GameTask], rows: bool) -> cf.Future:
    """``play_batch(tasks)`` on ``pool``; a pool that broke meanwhile gives a future that says
    so, like those of the batches it was playing (the batch is then lost with them)."""
    try:
        if isinstance(pool, cf.ProcessPoolExecutor):
            return pool.submit(_played_batch, tasks, rows)
        return pool.submit(play_batch, tasks, rows=rows)
    except BrokenProcessPool as e:
        lost: cf.Future = cf.Future()
        lost.set_exception(e)
        return lost


class WorkerLost(RuntimeError):
    """A worker died while playing games that were already being played again after one had."""

    def __init__(self, batches: list[list[GameTask]]) -> None:
        games = [t for batch in batches for t in batch]
        shown = ", ".join(f"#{t.index} {' vs '.join(b.name for b in t.players)}" for t in games[:5])
        more = f" and {len(games) - 5} more" if len(games) > 5 else ""
        super().__init__(f"a worker died twice while playing games {shown}{more}")
        self.tasks = games


def _faulted(results: list, rows: bool) -> set[str]:
    """The bots that lost a game of ``results`` (journal rows or records) by a crash or on time:
    what a trusted bot that ends or stalls its worker shows once isolated."""
    if rows:  # kothkit.store.journal.GameRow: the games table's columns
        return {r.fault for r in results if r.verdict in _ENDS_WORKERS}
    return {r.offender for r in results if r.verdict in _ENDS_WORKERS}


_ENDS_WORKERS = (Verdict.CRASH, Verdict.TIMEOUT)


def _isolated(task: GameTask) -> GameTask:
    """``task`` with its function bots in hosts of their own (a no-op for program bots)."""
    return attrs.evolve(task, trusted=False) if task.trusted else task


def _pick(window: deque[GameTask], size: int, stateful: set[str], busy: set[str]) -> list[GameTask]:
    """Take up to ``size`` startable tasks from ``window`` (in order): none whose stateful bot is
    busy or has an earlier task left waiting.  Adds the picked tasks' stateful bots to ``busy``."""
    picked: list[GameTask] = []
    kept: list[GameTask] = []
    blocked: set[str] = set()
    while window and len(picked) < size:
        t = window.popleft()
        names = {b.name for b in t.players} & stateful
        if names & (busy | blocked):
            blocked |= names
            kept.append(t)
            continue
        picked.append(t)
        busy |= names
    window.extendleft(reversed(kept))
    return picked


@attrs.frozen
class TournamentResult:
    game: str
    seed: int
    bots: tuple[BotSpec, ...]
    standings: list[Standing]
    played: int
    reused: int
    total: int
    journal: Path
    schedule: Schedule
    errors: tuple[BotError, ...] = ()
    #: Elo ratings with 95% intervals from all the games (see kothkit.store.ratings).
    ratings: Ratings | None = None

    def records(self, journal: Journal) -> Iterable[GameRecord]:
        """The games of this tournament from ``journal``, in schedule order (streamed)."""
        for chunk in _chunks(self.schedule.ids(), 500):
            yield from journal.get(chunk)

    def outlines(self, journal: Journal) -> Iterable[tuple]:
        """The outlines of the games of this tournament (:meth:`Journal.outlines`), in schedule order (streamed)."""
        for chunk in _chunks(self.schedule.ids(), 500):
            yield from journal.outlines(chunk)


def _chunks(it, n):
    it = iter(it)
    while chunk := list(itertools.islice(it, n)):
        yield chunk


def build_bots(bots: Sequence[BotSpec], on_build: Callable[[BotSpec], None] | None = None,
               timeout: float | None = None) -> tuple[list[BotSpec], list[BotError]]:
    ok, errors = [], []
    from kothkit.bots.build import BUILD_TIMEOUT, is_built

    for b in bots:
        if b.build and on_build is not None and not is_built(b):
            on_build(b)
        _, err = build(b, timeout or BUILD_TIMEOUT)
        if err is None:
            ok.append(b)
        else:
            errors.append(err)
    return ok, errors


def _notice_changed_code(j: Journal, schedule: Schedule, on_notice: Callable[[str], None] | None) -> None:
    """Tell the host when games are played again because the game's code (or version) is not the
    one the journal's last run of it had: the journal's games under the old code no longer count."""
    last = j.last_run(schedule.game)
    if last is None or on_notice is None:
        return
    old = json.loads(last["settings"]).get("game")
    if old == schedule.code:
        return
    stale = attrs.evolve(schedule, code=old)
    n = sum(1 for chunk in _chunks(stale.ids(), 500) for _ in j.results(chunk))
    if not n:
        return
    name, new = schedule.game, schedule.code or {}
    if old is None:
        why = f"the journal's games of {name} were played before their ids held the game's code"
    elif old.get("plugin") != new.get("plugin"):
        why = f"{name} is now {new.get('plugin') or 'registered in code'} (the journal's games: {old.get('plugin')})"
    else:
        why = f"{name}'s code changed since the journal's games"
    on_notice(f"{why}: {n} games will be played again")


def run_tournament(
    info: GameInfo,
    bots: Sequence[BotSpec],
    *,
    seed: int,
    journal: str | Path,
    jobs: int = 1,
    limits: Limits | None = None,
    rules: dict | None = None,
    rounds: int = 1,
    trusted: bool = False,
    on_record: Callable[[GameResult, bool], None] | None = None,
    on_notice: Callable[[str], None] | None = None,
    cluster=None,
) -> TournamentResult:
    """Play (or reuse from ``journal``) every game of the round robin and rank the bots.

    ``on_record(result, reused)`` is called with each game's :class:`GameResult` as it is stored or found;
    ``on_notice(text)`` with what the host should know of the run itself (see :func:`dispatch`).
    Bots must already be built (see :func:`build_bots`).  ``cluster``: a checked
    :class:`kothkit.playing.cluster.ClusterPool` that plays the games instead of ``jobs`` local workers.
    """
    limits = limits or info.limits
    rules = {**info.rules, **(rules or {})}
    code = game_code(info)
    schedule = Schedule(game=info.name, bots=tuple(bots), seed=seed, rounds=rounds, limits=limits,
                        rules=rules, trusted=trusted, code=code)
    jpath = Path(journal)
    played = reused = 0
    with Journal(jpath) as j:
        _notice_changed_code(j, schedule, on_notice)
        run_id = j.start_run(info.name, seed, settings_of(limits, rules, code),
                             [{"name": b.name, "hash": b.hash, "where": journal_entry(b, jpath),
                               **({"submitted": b.submitted} if b.submitted else {})} for b in bots],
                             rounds=rounds)
        batch = FAST_BATCH if bots and all(b.kind == "function" for b in bots) else PROGRAM_BATCH
        if cluster is not None:
            # A batch to another machine costs a millisecond or so: batches of any game grow
            # towards BATCH_SECONDS of play (see dispatch).
            jobs, batch = len(cluster.workers), FAST_BATCH
        # Counted from each game's row as it is stored, or as it is found in the journal: the
        # standings agree with the journal without reading it all back at the end.
        tally = Tally(info.scoring, [b.name for b in bots])
        # The same games by game pair (indices 2k and 2k + 1 of the schedule, key k), for the ratings.
        pairs = PairTally()
        seatings: dict[str, tuple[str, ...]] = {}

        # A journal with no games (a first run) has none to reuse: its games are not looked up.
        fresh = j.empty()

        def unplayed() -> Iterator[GameTask]:
            nonlocal reused
            if fresh:
                yield from schedule
                return
            for chunk in _chunks(schedule, 256):
                found = list(j.results([t.id for t in chunk]))
                # A reused game's place is the one it has in this schedule (bots come and go).
                places = {t.id: t.index for t in chunk} if found else {}
                for r in found:
                    tally.add(r.players, r.winner)
                    pairs.add(r.players, r.winner, places[r.id] >> 1)
                    if on_record is not None:
                        on_record(r._replace(place=places[r.id]), True)
                reused += len(found)
                known = {r.id for r in found}
                for t in chunk:
                    if t.id not in known:
                        yield t

        def store(rows: list[GameRow]) -> None:
            nonlocal played
            j.add_rows(rows)
            played += len(rows)
            for row in rows:
                r = result_of(row, seatings)
                tally.add(r.players, r.winner)
                pairs.add(r.players, r.winner, row.idx >> 1)
                if on_record is not None:
                    on_record(r, False)

        per_job = fair_cpu(info.pondering, jobs, limits.pin_cpu)[0] if any(b.kind != "function" for b in bots) else 1
        dispatch(unplayed(), jobs=jobs, pin_cpu=limits.pin_cpu and cluster is None,
                 stateful={b.name for b in bots if b.stateful},
                 batch=batch, on_done=lambda tasks, rows: store(rows), rows=True, on_notice=on_notice,
                 cores_per_job=per_job, pool=cluster, first=8 if batch == FAST_BATCH else 1)
        j.finish_run(run_id, played, reused)
        table = tally.standings({b.name: b.submitted for b in bots if b.submitted})
    return TournamentResult(game=info.name, seed=seed, bots=tuple(bots), standings=table, played=played,
                            reused=reused, total=schedule.total, journal=jpath, schedule=schedule,
                            ratings=pairs.rate([b.name for b in bots]))
