"""Where games and builds run: one interface, :class:`Executor`, and its local implementation.

``kothkit run``, ``match``, ``gauntlet``, ``verify`` and the host (``kothkit serve``) hand their
games and builds to an executor and get futures back.  Two implement it: :class:`LocalExecutor`,
worker processes on this machine (or, for one job of ``run``, this process itself), and
:class:`kothkit.playing.cluster.ClusterExecutor`, the workers of a Dask cluster.  Both play a
batch of games with :func:`play_batch` (same referee, limits and containment) and build a bot
with :func:`build` (contained, with the challenge's build limits), so a game's outcome does not
depend on where it ran.

A worker that dies fails the futures of what it was doing with ``BrokenProcessPool``;
:meth:`Executor.restart` then replaces the workers (the local pool; a cluster's scheduler does that
itself) and :attr:`Executor.generation` grows, so that a failure of an earlier generation is known
to be dealt with already.

Local workers each own a claimed core (:mod:`kothkit.procs.cores`; two, one per seat, for games
that allow pondering) and play their games' bots there.  They are forked for ``run`` (fast to
start, and they inherit the loaded plugins) and spawned for the host, which has threads: a
process forked from a threaded one may inherit a lock held by a thread that does not exist in it.
A worker dies with the process that started it (``PR_SET_PDEATHSIG``), and its bots with it.
"""

from __future__ import annotations

import concurrent.futures as cf
import gc
import multiprocessing
import multiprocessing.util
import os
import signal
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from kothkit.bots.functions import capture_output, release_output
from kothkit.store.records import GameTask

if TYPE_CHECKING:
    from kothkit.playing.settings import Cores

#: Batches of local workers grow or shrink towards taking this many seconds (see
#: :func:`kothkit.playing.tournament.dispatch`).
BATCH_SECONDS = 0.1

#: A job's core slot: its core, or with two cores a job (pondering) one for each seat.
CoreSlot = int | tuple[int, ...]


class Executor(Protocol):
    """Where games and builds run (see the module's text)."""

    #: Batches of games grow or shrink towards taking this many seconds of play.
    batch_seconds: float
    #: Grows each time the workers are replaced after one died.
    generation: int

    def capacity(self) -> int:
        """Units of work (a batch of games, a build) to keep in flight: one per worker."""

    def play(self, tasks: Sequence[GameTask], rows: bool = True, pondering: bool | None = None) -> cf.Future[Any]:
        """A future of ``tasks`` played in order on one worker: (their journal rows, or with ``rows``
        false their records; the seconds they played, or None where nobody measured).
        ``pondering``: whether the game gets a core a seat where the worker has two (None: as the
        worker's cores were claimed)."""

    def build(self, folder: str, timeout: float, memory_mb: int | None = None,
              processes: int | None = None) -> cf.Future[Any]:
        """A future of the build of the bot in ``folder`` on a worker: (ok, why not, seconds)."""

    def run_in(self, folder: str, fn: Callable[..., Any], *args: Any) -> cf.Future[Any]:
        """A future of ``fn(folder, *args)`` on a worker, with the folder built there."""

    def workers(self) -> dict[str, list[str]]:
        """The named workers and what each plays or builds now (a local pool's are not named)."""

    def refused(self) -> dict[str, str]:
        """The workers that failed the check before any game, and why."""

    def restart(self) -> None:
        """After a worker died: replace what is left of the workers."""

    def interrupt(self) -> None:
        """Ctrl-C: the workers cut their games short and hand back the games they finished."""

    def cancel(self) -> None:
        """Drop the work queued or running (the executor stays usable)."""

    def close(self, timeout: float | None = None) -> None:
        """Stop the workers (None: let them finish, else kill them within ``timeout`` seconds) and
        release what they held."""


# -- in a worker ----------------------------------------------------------------------------------

#: This worker's core slot.
_CPU: CoreSlot | None = None
_HOSTS = None
#: Set by the first Ctrl-C (SIGINT, see :func:`on_interrupt`): no game starts after it.
STOP = [False]
#: Above 0 while an interrupt must not raise here (the judge storing games, a worker between
#: batches); it is then acted on where that ends.
CALM = [0]


def on_interrupt(signum: int, frame: object) -> None:
    """SIGINT in the judge and its workers: stop; the game being played is cut short.

    Only the first one counts (a second Ctrl-C must neither be needed nor break the clean-up)."""
    if STOP[0]:
        return
    STOP[0] = True
    if not CALM[0]:
        raise KeyboardInterrupt


def pin_self(cpu: int) -> set[int] | None:
    """Pin this thread to ``cpu``: the affinity it had, or None where the machine refuses
    (pinning is for speed and fair timing; a game plays the same without it)."""
    try:
        free = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {cpu})
        return free
    except OSError:
        return None


def die_with(parent: int) -> None:
    """Make this process (a pool worker) get SIGTERM when ``parent`` (its pid, read before the
    fork) dies, and leave at once if it is dead already."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass
    # Checked after arming: a parent that died between the fork and the arming sent no signal.
    if os.getppid() != parent:
        os._exit(143)


def _init_worker(counter: Any, cores: Sequence[CoreSlot] | None, parent: int, interrupts: bool,
                 pids: Any = None) -> None:
    """A local worker's start (``parent``: the pid of the process that started it, read before).

    ``interrupts``: Ctrl-C cuts the worker's game short (``run``); else the parent decides alone
    (the host, whose terminal's Ctrl-C reaches its whole process group)."""
    global _CPU
    # If the parent dies, its workers get SIGTERM and leave at once: every bot and function host
    # runs under a jail init that dies with its parent (the worker), taking the bot with it.
    # Unwinding instead could hang in the pool's exit handlers, with nobody left to read.
    die_with(parent)
    with counter.get_lock():
        slot = counter.value
        counter.value += 1
    if pids is not None:
        # The parent signals and kills its workers by these pids (the pool names them to nobody).
        pids[slot % len(pids)] = os.getpid()
    if cores:
        _CPU = cores[slot % len(cores)]
        pin_self(_CPU[0] if isinstance(_CPU, tuple) else _CPU)
    from kothkit.bots import overtime

    # A trusted bot that swallows every interruption past its time ends this worker; the
    # judge plays the worker's games again with their bots isolated.
    overtime.give_up = lambda: os._exit(70)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(143))
    STOP[0] = False
    CALM[0] = 1
    signal.signal(signal.SIGINT, on_interrupt if interrupts else signal.SIG_IGN)
    # A worker that ends normally stops its function hosts and removes their cgroups; one that
    # is killed leaves them to the judge's sweep (kothkit.procs.contain.sweep_cgroups).
    multiprocessing.util.Finalize(None, close_hosts, exitpriority=10)


def play_batch(tasks: Sequence[GameTask], cpu: CoreSlot | None = None, rows: bool = False) -> list[Any]:
    """Play ``tasks`` in order in this process (the worker-side unit of work), on ``cpu`` (None:
    this worker's core slot).

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
    records: list[Any] = []
    calm, CALM[0] = CALM[0], 0
    try:
        for t in tasks:
            if STOP[0]:
                break
            records.append(play_game(t, cpu=cpu, hosts=_HOSTS))
    except KeyboardInterrupt:
        STOP[0] = True
    finally:
        CALM[0] = calm
        release_output(saved)
    return [row_of(r) for r in records] if rows else records


def slot_for(tasks: Sequence[GameTask], slot: CoreSlot | None, pondering: bool | None) -> CoreSlot | None:
    """The cores ``tasks`` play on, of a worker's ``slot``: none where their limits do not pin; one,
    or with ``pondering`` one a seat where the slot has two (None: the slot as it is)."""
    if slot is None or not tasks or not tasks[0].limits.pin_cpu:
        return None
    if pondering is None or not isinstance(slot, tuple):
        return slot
    return slot if pondering and len(slot) > 1 else slot[0]


def play(tasks: Sequence[GameTask], rows: bool = True, pondering: bool | None = None) -> tuple[list[Any], float]:
    """What a local worker runs for a batch: :func:`play_batch` on its cores, with the seconds it
    played (by which batches are sized: not their wait in a queue)."""
    t0 = time.perf_counter()
    cpu = slot_for(tasks, _CPU, pondering)
    out = play_batch(tasks, cpu=cpu, rows=rows)
    return out, time.perf_counter() - t0


def close_hosts() -> None:
    global _HOSTS
    if _HOSTS is not None:
        _HOSTS.close()
        _HOSTS = None


def build(folder: str, timeout: float, memory_mb: int | None = None, processes: int | None = None
          ) -> tuple[bool, str, float]:
    """Build the bot in ``folder`` (if it has a build step and is not built yet) with ``timeout``
    seconds, ``memory_mb`` of real memory and ``processes`` tasks (None: the build's defaults,
    kothkit.bots.build): (ok, why not, seconds it took).  The message is the compiler's output,
    without the folder's path (it is shown to the author)."""
    from kothkit.bots.build import BUILD_MEMORY_MB, BUILD_PROCESSES
    from kothkit.bots.build import build as build_bot
    from kothkit.bots.folders import BotError, BotKind, load_folder, printable

    began = time.monotonic()
    try:
        spec = load_folder(Path(folder))
    except (BotError, OSError) as e:
        return False, str(e), time.monotonic() - began
    if spec.kind == BotKind.FUNCTION:
        assert spec.entry is not None  # a function bot names its file and function
        ok, why = check_function(spec.path, spec.entry.rpartition(":")[2], timeout, memory_mb or BUILD_MEMORY_MB,
                                 processes or BUILD_PROCESSES)
        return ok, why, time.monotonic() - began
    _, err = build_bot(spec, timeout, memory_mb or BUILD_MEMORY_MB, processes or BUILD_PROCESSES)
    took = time.monotonic() - began
    if err is None:
        return True, "", took
    text = str(err)
    where = printable(f"{err.where}:{err.line}" if err.line else err.where) + ": "
    return False, text[len(where):] if text.startswith(where) else text, took


#: Compiles a Python file (never runs it), and looks for a binding of the function's name
#: anywhere in it (a def, an assignment, an import): the check of a function bot's submission.
_CHECK = ("import ast, sys, traceback\n"
          "name, func = sys.argv[1], sys.argv[2]\n"
          "try:\n"
          "    source = open(name, 'rb').read()\n"
          "    compile(source, name, 'exec')\n"
          "except (SyntaxError, ValueError) as e:\n"
          "    print(''.join(traceback.format_exception_only(type(e), e)).rstrip())\n"
          "    sys.exit(1)\n"
          "def binds(n):\n"
          "    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):\n"
          "        return n.name == func\n"
          "    if isinstance(n, ast.Name):\n"
          "        return n.id == func and not isinstance(n.ctx, ast.Load)\n"
          "    if isinstance(n, ast.alias):\n"
          "        return (n.asname or n.name) == func or n.name == '*'\n"
          "    return False\n"
          "if not any(binds(n) for n in ast.walk(ast.parse(source, name))):\n"
          "    print(f'{name} defines no function {func!r}: the game calls {func}(...) in it')\n"
          "    sys.exit(1)\n")


def check_function(file: Path, func: str, timeout: float, memory_mb: int | None = None,
                   processes: int | None = None) -> tuple[bool, str]:
    """A function bot's "build": its file compiles and defines ``func`` (else a failed build, its
    author told where, rather than a crash in every game).  Checked in the bot's jail, within the
    challenge's build time and caps (None: the build's defaults), never run: a stranger's source
    is parsed nowhere else."""
    import sys

    from kothkit.bots.build import BUILD_MEMORY_MB, BUILD_PROCESSES, run_jailed
    from kothkit.bots.folders import printable

    try:
        ran = run_jailed([sys.executable, "-I", "-S", "-c", _CHECK, file.name, func], file.parent, timeout,
                         memory_mb or BUILD_MEMORY_MB, processes or BUILD_PROCESSES)
    except OSError as e:
        return False, f"cannot check the file: {e}"
    code = ran.code
    if ran.oom:
        return False, f"checking the file went over its {memory_mb or BUILD_MEMORY_MB} MiB (build_memory_mb)"
    text = printable(ran.output.decode("utf-8", "replace").strip(), keep_newlines=True)[:4000]
    if code is None:
        return False, f"checking the file took longer than {timeout:g} s"
    if code != 0:
        return False, text or f"checking the file failed (exit {code})"
    return True, ""


# -- the local pool ---------------------------------------------------------------------------------


class LocalExecutor:
    """``jobs`` worker processes on this machine, each owning a core slot (see the module's text).

    With ``start="fork"`` and one job, games and builds run in this process itself, pinned to the
    job's core only while they play (so the journal's checkpoint thread stays free).
    ``on_notice(text)`` hears when another judge already plays on the cores claimed.
    """

    batch_seconds = BATCH_SECONDS

    def __init__(self, jobs: int, *, pin_cpu: bool = True, cores_per_job: int = 1, start: str = "fork",
                 interrupts: bool = True, on_notice: Callable[[str], None] | None = None) -> None:
        from kothkit.procs.cores import claim

        self.jobs = max(1, jobs)
        self._start = start
        self._interrupts = interrupts
        self._claim = claim(self.jobs * cores_per_job) if pin_cpu else None
        #: Job slot -> its cores: with two cores a job (pondering) one for each seat.
        self.slots: list[CoreSlot] | None = None
        if self._claim is not None:
            got = self._claim.cores
            self.slots = (list(got) if cores_per_job == 1 else
                          [tuple(got[i * cores_per_job:(i + 1) * cores_per_job]) for i in range(self.jobs)])
            shared = sorted(set(got) - set(self._claim.held))
            if shared and on_notice is not None:
                # Bots that share a core lose time to each other: the host should know.
                on_notice(f"jobs on cores {got}: another judge also plays on cores {shared} "
                          f"(fewer jobs, or one judge at a time, keep move times fair)")
        self._inline = start == "fork" and self.jobs == 1
        self._lock = threading.Lock()
        self._pool: cf.ProcessPoolExecutor | None = None
        #: The pool's workers' pids, each written by the worker itself as it starts (0: none yet).
        self._pids: Any = None
        self._running: set[cf.Future[Any]] = set()
        self._closed = False
        self.generation = 0

    # -- work ------------------------------------------------------------------------------------
    def play(self, tasks: Sequence[GameTask], rows: bool = True, pondering: bool | None = None) -> cf.Future[Any]:
        if self._inline:
            return self._here(tasks, rows, pondering)
        return self._submit(play, list(tasks), rows, pondering)

    def build(self, folder: str, timeout: float, memory_mb: int | None = None,
              processes: int | None = None) -> cf.Future[Any]:
        return self._submit(build, folder, timeout, memory_mb, processes)

    def run_in(self, folder: str, fn: Callable[..., Any], *args: Any) -> cf.Future[Any]:
        return self._submit(fn, folder, *args)

    def _here(self, tasks: Sequence[GameTask], rows: bool, pondering: bool | None) -> cf.Future[Any]:
        """Play ``tasks`` at once in this process (one job of ``run``), on the job's core."""
        f: cf.Future[Any] = cf.Future[Any]()
        cpu = slot_for(tasks, self.slots[0] if self.slots else None, pondering)
        free = None if cpu is None else pin_self(cpu[0] if isinstance(cpu, tuple) else cpu)
        try:
            t0 = time.perf_counter()
            out = play_batch(tasks, cpu=cpu, rows=rows)
            f.set_result((out, time.perf_counter() - t0))
        except Exception as e:  # re-raised by the caller's .result(); an interrupt goes on now
            f.set_exception(e)
        finally:
            if free is not None:
                os.sched_setaffinity(0, free)
        return f

    def _submit(self, fn: Callable[..., Any], *args: Any) -> cf.Future[Any]:
        if self._inline:
            f: cf.Future[Any] = cf.Future[Any]()
            try:
                f.set_result(fn(*args))
            except Exception as e:  # noqa: BLE001 - re-raised by the caller's .result()
                f.set_exception(e)
            return f
        with self._lock:
            if self._closed:
                raise RuntimeError("the executor is closed")
            if self._pool is None:
                ctx = multiprocessing.get_context(self._start)
                # No lock: each slot is written once, by its own worker (a worker killed while it
                # held a lock would leave the parent waiting on it for good).
                self._pids = ctx.Array("i", self.jobs, lock=False)
                self._pool = cf.ProcessPoolExecutor(
                    max_workers=self.jobs, mp_context=ctx, initializer=_init_worker,
                    initargs=(ctx.Value("i", 0), self.slots, os.getpid(), self._interrupts, self._pids))
            try:
                fut = self._pool.submit(fn, *args)
            except BrokenProcessPool as e:  # it broke meanwhile: this work is lost with the rest
                lost: cf.Future[Any] = cf.Future[Any]()
                lost.set_exception(e)
                return lost
            self._running.add(fut)
        fut.add_done_callback(self._running.discard)
        return fut

    # -- workers ---------------------------------------------------------------------------------
    def capacity(self) -> int:
        return self.jobs

    def workers(self) -> dict[str, list[str]]:
        return {}

    def refused(self) -> dict[str, str]:
        return {}

    def restart(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
            pids = self._pids
            self.generation += 1
        if pool is not None:
            _kill(pool, pids, 5.0)

    def interrupt(self) -> None:
        with self._lock:
            pids = self._pids if self._pool is not None else None
        _signal_workers(pids, signal.SIGINT)

    def cancel(self) -> None:
        # (a future is done before its callback drops it from _running: done ones do not count)
        if any(not f.done() for f in list(self._running)):
            self.restart()

    def close(self, timeout: float | None = None) -> None:
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
            pids = self._pids
        if pool is not None:
            if timeout is None:
                pool.shutdown(wait=True, cancel_futures=True)
            else:
                _kill(pool, pids, timeout)
        if self._inline:
            close_hosts()
        if self._claim is not None:
            self._claim.release()
            self._claim = None
        if not self._inline:
            from kothkit.procs.contain import sweep_cgroups

            # The cgroups of workers that were killed go now, not at the next judge's start.
            sweep_cgroups()

    def __enter__(self) -> LocalExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def executor_for(cores: Cores, *, start: str = "fork", interrupts: bool = True,
                 on_notice: Callable[[str], None] | None = None) -> LocalExecutor:
    """The executor of a run's plan (:attr:`kothkit.playing.settings.Settings.cores`, or the host's
    widest): ``cores.jobs`` workers, ``cores.per_job`` cores each, claimed and pinned with
    ``cores.pin``.  ``run``, ``match``, ``gauntlet``, ``verify`` (through
    :func:`kothkit.playing.tournament.dispatch`) and the host make theirs here; a Dask cluster
    (``--cluster``) is an executor of its own, connected and checked by :mod:`kothkit.playing.cluster`."""
    return LocalExecutor(cores.jobs, pin_cpu=cores.pin, cores_per_job=cores.per_job, start=start,
                         interrupts=interrupts, on_notice=on_notice)


def _signal_workers(pids: Any, signum: int) -> None:
    """Send ``signum`` to each worker still this process's child (a reaped worker's pid may be reused)."""
    me = os.getpid()
    for pid in list(pids or ()):
        if pid > 0 and _parent_of(pid) == me:
            try:
                os.kill(pid, signum)
            except OSError:
                pass


def _parent_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold spaces: fields count after its end.
    return int(stat[stat.rindex(")") + 2:].split()[1])


def _kill(pool: cf.ProcessPoolExecutor, pids: Any, timeout: float) -> None:
    """Kill ``pool``'s workers (and with them their bots and builds) and reap them within ``timeout``."""
    # The pool reaps its dead workers as it shuts down; a thread bounds the wait.
    reaper = threading.Thread(target=pool.shutdown, kwargs={"wait": True, "cancel_futures": True},
                              name="kothkit-pool-reaper", daemon=True)
    _signal_workers(pids, signal.SIGKILL)
    reaper.start()
    end = time.monotonic() + timeout
    # Again until the pool is down: a worker still starting writes its pid only once it runs.
    while reaper.is_alive() and time.monotonic() < end:
        reaper.join(0.1)
        _signal_workers(pids, signal.SIGKILL)
