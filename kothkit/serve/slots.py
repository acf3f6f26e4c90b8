"""The host's game slots: ``jobs`` worker processes that play games and run builds.

Each worker owns a claimed core (:func:`kothkit.procs.cores.claim`; two, one per seat, when a
served game allows pondering and the machine has them) and plays one game
(through :func:`kothkit.playing.tournament.play_batch`, as a tournament's workers do, so a
game's bots are contained and pinned exactly as in ``kothkit run``) or runs one
build (:func:`kothkit.bots.build.build`, contained, with the challenge's build time)
at a time.  Workers are started with ``spawn``: the host has threads (the web
server's, its own), and a process forked from a threaded one may inherit a lock
held by a thread that does not exist in it.  A worker dies with the host
(``PR_SET_PDEATHSIG``), and its bots and builds with it; :meth:`Slots.kill` kills
them all at once and reaps them, so a game or build in progress is simply lost
(and redone by the host).
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
import os
import signal
import threading
import time
from pathlib import Path

from kothkit.playing.tournament import die_with
from kothkit.store.records import GameTask

#: This worker's cores: one, or one per seat when the host gives games that allow pondering two
#: cores a slot (empty: not pinned).
_CPUS: tuple[int, ...] = ()


def _init_worker(counter, cores: list[tuple[int, ...]] | None, host: int) -> None:
    global _CPUS
    with counter.get_lock():
        slot = counter.value
        counter.value += 1
    if cores:
        _CPUS = cores[slot % len(cores)]
        try:
            os.sched_setaffinity(0, {_CPUS[0]})
        except OSError:  # pinning is for fair timing; a game plays the same without it
            pass
    die_with(host)  # the worker dies with the host, even one that died as the worker started
    # SIGTERM (the host's kill, or its death): leave at once; the bots' jails die with this process.
    signal.signal(signal.SIGTERM, lambda *_: os._exit(143))
    # Ctrl-C at the host's terminal reaches its whole process group: the host decides, not its workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def play(task: GameTask, pondering: bool) -> list[tuple]:
    """Play ``task`` in this worker: its journal row (a one-item list, as play_batch gives).
    A game that allows ``pondering`` gets a core per seat when the slot has two."""
    from kothkit.playing.tournament import play_batch

    cpu = None
    if task.limits.pin_cpu and _CPUS:
        cpu = _CPUS if pondering and len(_CPUS) > 1 else _CPUS[0]
    return play_batch([task], cpu=cpu, rows=True)


def build(folder: str, timeout: float, memory_mb: int | None = None, processes: int | None = None
          ) -> tuple[bool, str, float]:
    """Build the bot in ``folder`` (if it has a build step and is not built yet) with ``timeout``
    seconds, ``memory_mb`` of real memory and ``processes`` tasks (None: the build's defaults,
    kothkit.bots.build): (ok, why not, seconds it took).  The message is the compiler's output,
    without the folder's path (it is shown to the author)."""
    from kothkit.bots.build import BUILD_MEMORY_MB, BUILD_PROCESSES
    from kothkit.bots.build import build as build_bot
    from kothkit.bots.folders import BotError, load_folder, printable

    began = time.monotonic()
    try:
        spec = load_folder(Path(folder))
    except (BotError, OSError) as e:
        return False, str(e), time.monotonic() - began
    if spec.kind == "function":
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


class Slots:
    """``jobs`` worker processes; :meth:`submit` runs a function there and gives its future.

    A worker that dies breaks the pool (every future in flight fails with
    ``BrokenProcessPool``); :meth:`restart` then makes a new one.
    """

    def __init__(self, jobs: int, pin_cpu: bool = True, cores_per_job: int = 1) -> None:
        from kothkit.procs.cores import claim

        self.jobs = max(1, jobs)
        self._lock = threading.Lock()
        self._claim = claim(self.jobs * cores_per_job) if pin_cpu else None
        self._cores = None
        if self._claim is not None:
            got = self._claim.cores
            self._cores = [tuple(got[i * cores_per_job:(i + 1) * cores_per_job]) for i in range(self.jobs)]
        self._pool: cf.ProcessPoolExecutor | None = None
        self._closed = False
        #: Grows each time the pool is made again: a future of an earlier pool that failed
        #: tells of a death already dealt with.
        self.generation = 0

    def _make(self) -> cf.ProcessPoolExecutor:
        ctx = multiprocessing.get_context("spawn")
        return cf.ProcessPoolExecutor(max_workers=self.jobs, mp_context=ctx, initializer=_init_worker,
                                      initargs=(ctx.Value("i", 0), self._cores, os.getpid()))

    def submit(self, fn, *args) -> cf.Future:
        with self._lock:
            if self._closed:
                raise RuntimeError("the host's slots are closed")
            if self._pool is None:
                self._pool = self._make()
            try:
                return self._pool.submit(fn, *args)
            except cf.process.BrokenProcessPool as e:
                lost: cf.Future = cf.Future()
                lost.set_exception(e)
                return lost

    def play(self, task: GameTask, pondering: bool) -> cf.Future:
        """A future of ``task``'s journal rows, played in a worker (see :func:`play`)."""
        return self.submit(play, task, pondering)

    def build(self, folder: str, timeout: float, memory_mb: int | None = None,
              processes: int | None = None) -> cf.Future:
        """A future of the build of ``folder`` in a worker: (ok, output, seconds) (see :func:`build`)."""
        return self.submit(build, folder, timeout, memory_mb, processes)

    def run_in(self, folder: str, fn, *args) -> cf.Future:
        """A future of ``fn(folder, *args)`` in a worker (a brain's check, on its built folder)."""
        return self.submit(fn, folder, *args)

    def capacity(self) -> int:
        """Games or builds to keep in flight."""
        return self.jobs

    def workers(self) -> dict[str, list[str]]:
        """The workers by name and what each plays: the host's own slots are not named."""
        return {}

    def refused(self) -> dict[str, str]:
        """The workers that failed the check, and why: the host's own slots need none."""
        return {}

    def restart(self) -> None:
        """After a worker died: kill what is left of the pool; the next submit makes a new one."""
        with self._lock:
            pool, self._pool = self._pool, None
            self.generation += 1
        if pool is not None:
            _kill(pool, 5.0)

    def close(self, timeout: float = 5.0) -> None:
        """Kill every worker (and with them, their games' bots and builds), reap them, release the
        cores.  Futures in flight fail."""
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is not None:
            _kill(pool, timeout)
        if self._claim is not None:
            self._claim.release()
            self._claim = None
        from kothkit.procs.contain import sweep_cgroups

        # The cgroups of the killed workers' bots go now (their maker is gone), not at the next judge's start.
        sweep_cgroups()


def _kill(pool: cf.ProcessPoolExecutor, timeout: float) -> None:
    procs = list((getattr(pool, "_processes", None) or {}).values())
    for proc in procs:
        try:
            proc.kill()
        except (OSError, ValueError):
            pass
    end = time.monotonic() + timeout
    for proc in procs:
        try:
            proc.join(max(0.0, end - time.monotonic()))
        except (OSError, ValueError, AssertionError):
            pass
    pool.shutdown(wait=False, cancel_futures=True)
