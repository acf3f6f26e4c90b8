"""Games played on a Dask distributed cluster (``kothkit run --cluster ADDRESS`` or ``local:N``).

The judge stays where it is started: it builds the schedule, hands batches of games to the
cluster through :func:`kothkit.playing.tournament.dispatch` (a :class:`ClusterExecutor` is the
executor, :mod:`kothkit.playing.executor`, the local pool's counterpart: play a batch, get a
future of its journal rows) and stores every game in its journal as the rows come back.  The
host (``kothkit serve --cluster``) plays and builds on the same executor.  Resume, incremental
re-runs, ``verify`` and determinism are therefore those of ``--jobs``: a game's id and outcome
do not depend on where it ran.

A worker plays a batch with :func:`kothkit.playing.executor.play_batch`, the function the local
pool's workers run: same referee, limits and containment.  What travels to a worker is the
batch's :class:`~kothkit.store.records.GameTask` list (game name, seeds, limits, rules, and each
bot's spec: its name, command, *path* and content hash); what comes back is journal rows.
Bots travel by content hash: before any game, every worker hashes each bot's folder at that
path and must find the judge's hash (a worker on this machine, or one that sees the same
folders through a shared file system at the same paths).  A worker that finds no such path is
sent the bot as a tar (:func:`receive`: unpacked once per machine under :func:`shipped_root`
by hash, checked, built there) and plays that copy.  A worker with other content at the path,
another kothkit version, or without the game's plugin (or with other code for it), is named in
a :class:`ClusterError`; one that joins later and fails the same check is named in the log and
left idle.

Differences from ``--jobs``, and why:

* ``--trusted`` function bots are played isolated: a Dask worker runs tasks in a thread, where
  an in-process bot that overruns could not be interrupted (see :mod:`kothkit.bots.overtime`).
  A deterministic bot plays the same games either way.
* Stateful bots play only when every worker runs on the judge's machine (same kernel boot id,
  e.g. ``local:N``): their state is files in their folder, which workers on other machines would
  each keep apart.  There :func:`~kothkit.playing.tournament.dispatch` gives a stateful bot its games one
  batch at a time in schedule order, as with ``--jobs``; elsewhere the run refuses them, saying so.
* Cores are claimed by the workers, not the judge: a worker's first batch claims a free core of
  its machine (:mod:`kothkit.procs.cores`), two for a game that allows pondering (one per seat), and
  it plays, with its bots, there from then on (start one single-threaded worker per core, or
  per two cores for such a game).  Where no core is free, it shares the one the fewest other
  workers of its machine play on (:func:`_claim`).
* A worker that dies mid-batch: the scheduler gives its batches to another worker (Dask's
  retries); only the result that comes back is stored, once (rows are also stored by game id
  with ``INSERT OR REPLACE``, so a game can never be in the journal twice).  A batch that kills
  workers again and again (Dask's ``allowed-failures``) is played once more with its bots
  isolated, as when a local worker dies.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

from kothkit.bots.folders import BotKind, BotSpec
from kothkit.game import GameInfo

#: Prefix of a local cluster's address: ``local:N`` starts N single-threaded worker processes.
LOCAL = "local:"
#: Seconds to reach a scheduler, and for workers to show up.
CONNECT_TIMEOUT = 30.0


#: Batches on a cluster grow towards this many seconds of play (see kothkit.playing.tournament.dispatch):
#: a batch's round trip through a scheduler costs far more than through the local pool.
BATCH_SECONDS = 0.5

#: Dask settings of a local cluster (``local:N``; docs/tournaments.md gives them for ``dask scheduler``
#: and ``dask worker``).
LOCAL_SETTINGS = {
    # Batches go to workers at once, each queued behind the one it plays (as in the local pool),
    # instead of waiting at the scheduler for a worker to ask.
    "distributed.scheduler.worker-saturation": "inf",
    # Background work that game players do not need and that takes CPU time from their games: with
    # batches already queued on every worker, stealing only moves them about; a sampling profiler in
    # each worker; an event-loop watchdog and monitors ticking often in every process.
    "distributed.scheduler.work-stealing": False,
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.admin.system-monitor.gil.enabled": False,
    "distributed.worker.memory.monitor-interval": "1s",
}

#: This worker's claimed core (kothkit.procs.cores.Claim), once its first batch asked for pinning.
_CLAIM = None


def play(tasks, rows: bool = False, pondering: bool | None = None) -> tuple[list, float]:
    """What a worker runs for a batch: :func:`kothkit.playing.executor.play_batch`, on this worker's
    own core when the games' limits pin (claimed at the first batch, held while the worker lives;
    two, one a seat, for a game that allows pondering).  Returns its results and the seconds it
    took to play them."""
    from kothkit.playing import executor

    global _CLAIM
    cpu = None
    if tasks and tasks[0].limits.pin_cpu:
        if _CLAIM is None:
            from kothkit.plugins import get_game

            # A game that allows pondering: each seat's bot gets a core of its own, as with --jobs.
            _CLAIM = _claim(2 if get_game(tasks[0].game).pondering else 1)
        cores = tuple(_CLAIM.cores)
        cpu = executor.slot_for(tasks, cores if len(cores) > 1 else cores[0], pondering)
        # Dask runs tasks in an executor thread: pin that thread (its bots inherit the core).
        if cpu is not None:
            executor.pin_self(cpu[0] if isinstance(cpu, tuple) else cpu)
    started = time.perf_counter()
    out = executor.play_batch([_here(t) for t in tasks], cpu=cpu, rows=rows)
    return out, time.perf_counter() - started


def _claim(n: int):
    """Claim ``n`` cores of this machine for this worker's life (:func:`kothkit.procs.cores.claim`); where
    some must be shared (every core held by a judge or a worker), share those that the fewest other
    workers of this machine play on.

    A judge's jobs are spread by one claim, but workers claim one at a time: a worker that found no
    free core would pick one at random, as likely as not one where another worker already plays
    (two workers' bots on one core, losing time to each other, while the other core serves only a
    judge).  So each worker holds a slot file (``worker-K.lock`` beside the cores' locks) naming its
    cores, and the workers of a machine claim in turn.
    """
    import fcntl
    import os

    from kothkit.procs.cores import claim, lock_dir

    folder = lock_dir()
    if folder is None:
        return claim(n)
    with open(folder / "workers.lock", "a") as turn:
        fcntl.flock(turn, fcntl.LOCK_EX)  # released when closed, below
        slot = None
        for k in range(1024):
            fd = os.open(folder / f"worker-{k}.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # a live worker's slot
                os.close(fd)
                continue
            slot = (fd, folder / f"worker-{k}.lock")
            break
        got = claim(n)
        if slot is None:
            return got
        if len(got.held) < n:
            used = _cores_of_workers(folder, slot[1])
            order = {c: i for i, c in enumerate(got.cores)}  # the claim's own (per-process) order
            others = sorted((c for c in os.sched_getaffinity(0) if c not in got.held),
                            key=lambda c: (used.get(c, 0), order.get(c, len(order))))
            ring = got.held + others
            got.cores = [ring[i % len(ring)] for i in range(n)]
        os.ftruncate(slot[0], 0)
        os.pwrite(slot[0], ",".join(map(str, got.cores)).encode(), 0)
        got._fds.append(slot[0])  # held while this worker lives (its claim is never released)
        return got


def _cores_of_workers(folder: Path, mine: Path) -> dict[int, int]:
    """How many live workers of this machine (those holding a slot file other than ``mine``) play
    on each core."""
    import fcntl
    import os

    used: dict[int, int] = {}
    for f in folder.glob("worker-*.lock"):
        if f == mine:
            continue
        try:
            fd = os.open(f, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                continue  # nobody holds it: the slot of a worker gone
            except OSError:
                text = os.pread(fd, 256, 0).decode("ascii", "replace")
        finally:
            os.close(fd)
        for c in text.split(","):
            if c.strip().isdigit():
                used[int(c)] = used.get(int(c), 0) + 1
    return used


#: Where this worker finds a bot, by content hash: None at the judge's path, else the copy it was
#: sent (see :func:`receive`; looked up on disk too, for a worker restarted since).
_WHERE: dict[str, Path | None] = {}


def _place(b: BotSpec) -> Path | None:
    if b.hash not in _WHERE:
        sent = shipped_root() / b.hash / Path(b.path).name
        # Only a copy that :func:`receive` finished (unpacked, checked and built): another worker
        # of this machine may be unpacking or building it right now.
        done = _ready(b.hash).exists() and sent.exists()
        _WHERE[b.hash] = sent if not Path(b.path).exists() and done else None
    return _WHERE[b.hash]


def _ready(bot_hash: str) -> Path:
    """The mark :func:`receive` leaves once a sent bot is unpacked, checked and built here."""
    return shipped_root() / f"{bot_hash}.ready"


def shipped_root() -> Path:
    """Where a worker keeps the bots it was sent, by content hash (one folder per user)."""
    import os
    import tempfile

    return Path(tempfile.gettempdir()) / f"kothkit-shipped-{os.getuid()}"


def _moved(b: BotSpec, where: Path) -> BotSpec:
    import attrs

    entry = b.entry
    if b.kind == BotKind.FUNCTION and entry:
        entry = f"{where}:{entry.rpartition(':')[2]}"
    return attrs.evolve(b, path=where, entry=entry)


def _here(task):
    """``task`` with the bots this worker was sent at their place here."""
    import attrs

    players = tuple(_moved(b, where) if (where := _place(b)) is not None else b for b in task.players)
    return attrs.evolve(task, players=players) if players != task.players else task


def _pack(b: BotSpec) -> bytes:
    """``b``'s folder (or a function bot's file) as a gzipped tar, its state and build output left out."""
    import fnmatch
    import io
    import tarfile

    from kothkit.bots.folders import HASH_IGNORE

    def keep(info):
        parts = Path(info.name).parts[1:]
        return None if any(fnmatch.fnmatch(p, pat) for p in parts for pat in HASH_IGNORE) else info

    path = Path(b.path)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(path, arcname=path.name, recursive=True, filter=keep)
    return buf.getvalue()


def receive(b: BotSpec, packed: bytes) -> str | None:
    """On a worker: unpack ``b`` sent by the judge under :func:`shipped_root` by its hash (once per
    machine), check its hash, build it there, and play it from there from now on.  Why not, or None."""
    import fcntl
    import io
    import shutil
    import tarfile

    root = shipped_root()
    root.mkdir(mode=0o700, exist_ok=True)
    home = root / b.hash
    where = home / Path(b.path).name
    moved = _moved(b, where)
    # The whole of it under the machine's lock for this bot, and marked ready last: the other
    # workers of this machine play it only once it is built (:func:`_place`).
    with open(root / f"{b.hash}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not _ready(b.hash).exists():
            shutil.rmtree(home, ignore_errors=True)
            home.mkdir()
            with tarfile.open(fileobj=io.BytesIO(packed), mode="r:gz") as tar:
                tar.extractall(home, filter="data")
            if _bot_hash(moved) != b.hash:
                return "the copy sent has other content"
            failed = _build_here(moved) if b.build else None
            if failed:
                return failed
            _ready(b.hash).touch()
    _WHERE[b.hash] = where
    return None


class ClusterError(RuntimeError):
    """The cluster cannot play this tournament (no workers, a worker that lacks what it needs)."""


def machine() -> str:
    """This machine's identity while it runs: the kernel's boot id (else the host name)."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        import socket

        return socket.gethostname()


def _bot_hash(b: BotSpec) -> str:
    """``b``'s content hash computed from its path here (as :mod:`kothkit.bots.folders` does on load)."""
    from kothkit.bots.folders import BUILD_SOURCE_GLOBS, content_hash

    path = Path(b.path)
    if not path.exists():
        return "missing"
    if path.is_file():
        return content_hash(path)
    return content_hash(path, b.sources or (BUILD_SOURCE_GLOBS if b.build else None))


def _build_here(b: BotSpec) -> str | None:
    """Build ``b`` on this machine unless it is built (its build cached by content hash, as on the
    judge's); one worker of a machine builds while the others wait.  Why it failed, or None."""
    import fcntl
    import tempfile

    from kothkit.bots.build import build

    lock = Path(tempfile.gettempdir()) / f"kothkit-build-{b.hash[:32]}.lock"
    with open(lock, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            _, err = build(b)
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
    return None if err is None else str(err).splitlines()[0]


def probe(game: str, bots: Sequence[BotSpec], hashes: dict[str, str] | None = None,
          tools: Sequence[str] = ()) -> dict:
    """What this process (a worker) has for ``game`` and ``bots``: kothkit's version, the game's
    code (see :func:`kothkit.plugins.game_code`) or why it cannot load, each bot's content hash as
    found at its path, and which of ``tools`` (compilers, interpreters) a jailed build or bot finds.
    A bot found as the judge has it (``hashes``: the judge's) that has a build step is built here
    if it is not (``builds``: the failures)."""
    import shutil

    import kothkit
    from kothkit.procs.contain import SYSTEM_PATH, jail_gaps

    out: dict = {"kothkit": kothkit.__version__, "code": None, "error": None, "bots": {}, "builds": {},
                 "machine": machine(), "jail": jail_gaps(),
                 # A jailed build starts from SYSTEM_PATH alone: the worker's own PATH does not count.
                 "missing": sorted(t for t in tools if shutil.which(t, path=SYSTEM_PATH) is None)}
    try:
        from kothkit.plugins import game_code, get_game

        out["code"] = game_code(get_game(game))
    except Exception as e:  # a missing or broken plugin: reported by the judge, naming this worker
        out["error"] = f"{type(e).__name__}: {e}"
    for b in bots:
        try:
            out["bots"][b.name] = _bot_hash(b)
            if b.build and hashes is not None and out["bots"][b.name] == hashes.get(b.name):
                failed = _build_here(b)
                if failed:
                    out["builds"][b.name] = failed
        except Exception as e:
            out["bots"][b.name] = f"unreadable ({type(e).__name__}: {e})"
    return out


def _problems(worker: str, seen: dict, version: str, code: dict, want: dict[str, str],
              jail: bool = False) -> list[str]:
    found = []
    if jail and seen.get("jail"):  # (a host taking submissions: see kothkit.procs.contain.jail_gaps)
        found.append(f"worker {worker} cannot jail strangers' code as promised: {'; '.join(seen['jail'])}")
    if seen.get("kothkit") != version:
        found.append(f"worker {worker} runs kothkit {seen.get('kothkit')}, the judge {version}")
    if seen.get("missing"):
        # A submission built there would fail for want of a compiler: the author's loss, not theirs.
        found.append(f"worker {worker} lacks {', '.join(seen['missing'])} (the challenges' languages need them)")
    if seen.get("error"):
        found.append(f"worker {worker} cannot load the game: {seen['error']}")
    elif seen.get("code") != code:
        found.append(f"worker {worker} has other code for the game's plugin "
                     f"({(seen.get('code') or {}).get('plugin')}; the judge: {code.get('plugin')})")
    for name, h in want.items():
        there = seen.get("bots", {}).get(name)
        if there != h:
            what = "no such path" if there == "missing" else there if str(there).startswith("unreadable") else \
                "other content"
            found.append(f"worker {worker} does not have bot {name} as the judge does ({what})")
    for name, why in seen.get("builds", {}).items():
        found.append(f"worker {worker} could not build bot {name}: {why}")
    return found


class ClusterPool:
    """A connection to a Dask cluster (a scheduler at an address, or a ``local:N`` cluster started
    here): :class:`ClusterExecutor` hands it its work."""

    def __init__(self, address: str, *, timeout: float = CONNECT_TIMEOUT):
        try:
            from distributed import Client, LocalCluster
        except ImportError as e:
            raise ClusterError("--cluster needs Dask distributed: pip install 'kothkit[cluster]'") from e
        self.address = address
        self.cluster = None
        self._futures: dict[str, object] = {}
        self._lock = threading.Lock()
        try:
            if address.startswith(LOCAL):
                try:
                    n = int(address[len(LOCAL):])
                except ValueError:
                    raise ClusterError(f"--cluster {address} is not local:N (N a number of workers)") from None
                if n < 1:
                    raise ClusterError(f"--cluster {address}: a local cluster needs at least one worker")
                import dask

                with dask.config.set(LOCAL_SETTINGS):
                    self.cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                                dashboard_address=None, silence_logs=logging.ERROR)
                self.client = Client(self.cluster, timeout=timeout)
            else:
                self.client = Client(address, timeout=timeout)
            self.client.wait_for_workers(1, timeout=timeout)
        except ClusterError:
            self.close()
            raise
        except (OSError, TimeoutError, ValueError) as e:
            self.close()
            raise ClusterError(f"cannot use the Dask cluster at {address}: {e}") from None

    def __enter__(self) -> ClusterPool:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def workers(self) -> list[str]:
        return sorted(self.client.scheduler_info(n_workers=-1)["workers"]) if hasattr(self, "client") else []

    def close(self) -> None:
        client = getattr(self, "client", None)
        if client is not None:
            try:
                client.close(timeout=10)
            except Exception:
                pass
        if self.cluster is not None:
            try:
                self.cluster.close(timeout=10)
            except Exception:
                pass
            self.cluster = None


def connect(address: str, info: GameInfo, bots: Sequence[BotSpec], code: dict | None = None,
            note: Callable[[str], None] | None = None) -> ClusterExecutor:
    """A checked :class:`ClusterExecutor` on ``address`` for a tournament of ``info`` between ``bots``
    (close it when done): :class:`ClusterError` names each worker that cannot play it, and why.
    ``note(text)`` hears of the workers that join or leave later."""
    return ClusterExecutor(address, [info], bots=bots, codes=None if code is None else {info.name: code},
                           note=note, strict=True)


# -- on a worker: the host's games and builds, with the bots sent ---------------------------------

#: Seconds between two looks at the cluster's workers (who joined, who left), and between two
#: lines of the host's log saying what each plays.
WORKERS_EVERY = 1.0
REPORT_EVERY = 60.0


def _ensure(b: BotSpec, packed: bytes | None) -> None:
    """On a worker: have ``b`` here (at its path, or a copy sent before), else unpack and build
    the copy sent (``packed``); a bot that cannot be had here fails the task, naming the bot."""
    if _place(b) is not None or Path(b.path).exists():
        return
    if packed is None:
        raise ClusterError(f"bot {b.name} is not on this worker ({machine()}) and was not sent")
    why = receive(b, packed)
    if why is not None:
        raise ClusterError(f"bot {b.name} sent to this worker: {why}")


def play_sent(tasks, packs: dict, rows: bool, pondering: bool | None) -> tuple[list, float]:
    """What a worker runs for a batch of games: their bots had here (at their paths, or sent by
    content hash where its folders are not: ``packs``, by hash), then :func:`play`."""
    for b in {b.hash: b for t in tasks for b in t.players}.values():
        _ensure(b, packs.get(b.hash))
    return play(tasks, rows=rows, pondering=pondering)


def build_bot(build, folder: str, timeout: float, memory_mb: int | None, processes: int | None, spec_hash: str,
              packed: bytes) -> tuple[bool, str, float]:
    """What a worker runs for one of the host's builds: ``build`` (the host's, which travels by its
    name: :func:`kothkit.playing.executor.build`, contained, within the challenge's build limits), at the
    folder's path where this worker sees the host's files, else in a copy of it sent by content
    hash (built there, for this machine's games)."""
    return build(_folder_here(folder, spec_hash, packed), timeout, memory_mb, processes)


def _folder_here(folder: str, spec_hash: str, packed: bytes) -> str:
    """``folder`` where this worker sees the host's files, else the copy of it sent (``packed``),
    unpacked once per machine under :func:`shipped_root` by the pack's hash."""
    import fcntl
    import io
    import shutil
    import tarfile

    if Path(folder).exists():
        return folder
    root = shipped_root()
    root.mkdir(mode=0o700, exist_ok=True)
    home = root / f"build-{spec_hash}"
    where = home / Path(folder).name
    with open(root / f"build-{spec_hash}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not where.exists():
            shutil.rmtree(home, ignore_errors=True)
            home.mkdir()
            with tarfile.open(fileobj=io.BytesIO(packed), mode="r:gz") as tar:
                tar.extractall(home, filter="data")
    return str(where)


def run_built(fn, build, folder: str, spec_hash: str, packed: bytes, *args):
    """``fn(folder, *args)`` on a worker, the folder built here first (a brain's check before the
    ladder, kothkit.serve.validation: the folder as :func:`build_bot` left it)."""
    here = _folder_here(folder, spec_hash, packed)
    if here != folder:
        build(here, 60.0)  # (built already by build_bot on this machine: a no-op, else its build)
    return fn(here, *args)


def _pack_folder(folder: Path) -> bytes:
    """A bot folder as a gzipped tar (its state and build output left out), as :func:`_pack`."""
    from kothkit.bots.folders import BotSpec as Spec

    return _pack(Spec(name=folder.name, path=folder, command=("x",)))


class ClusterExecutor:
    """Games and builds on the workers of a Dask cluster: the :class:`kothkit.playing.executor.Executor`
    of ``run --cluster`` and ``serve --cluster``, as :class:`~kothkit.playing.executor.LocalExecutor`
    is on this machine.

    Each worker is checked before it gets work: its kothkit version and each game's code, and
    the tournament's ``bots`` (their content at their paths; a bot a worker lacks is sent there by
    content hash and built, :func:`receive`).  ``strict`` (``run``): a worker present at the start
    that fails the check is a :class:`ClusterError` naming it, before any game.  Workers that join
    later (and with ``strict`` false, all of them) are checked when they first show up; one that
    fails is named in the log (``note``) and by :meth:`refused`, and left idle.  Only checked
    workers get work.

    With ``build`` (the host), what a game or build needs travels with it: a bot's folder is packed
    once by content hash and sent with each of its games (a brain's sources: kilobytes, rather
    than kept on one worker, whose loss would lose it), and a worker that does not see the host's
    folder unpacks and builds its copy (:func:`_ensure`).  A worker lost mid-game: the scheduler
    plays the game elsewhere (Dask's retries); once it has killed workers too often it fails with
    ``BrokenProcessPool``, and the caller plays it again.  A game is stored once, by its id,
    whoever played it.
    """

    batch_seconds = BATCH_SECONDS

    def __init__(self, address: str, games: Sequence[GameInfo], *, bots: Sequence[BotSpec] = (),
                 codes: dict[str, dict] | None = None, build=None, note=None, strict: bool = False,
                 tools: Sequence[str] = (), jail: bool = False) -> None:
        """``jail``: a worker whose jail lacks what strangers' code needs is refused;
        ``codes``: each game's code by name (default: :func:`kothkit.plugins.game_code`);
        ``build(folder, timeout, memory_mb, processes)``: how a worker builds a bot
        (:func:`kothkit.playing.executor.build`); ``tools``: the programs every worker must have
        (the compilers and interpreters of the host's languages)."""
        from kothkit.plugins import game_code

        self._build = build
        self._jail = jail
        self._tools = tuple(sorted(set(tools)))
        self.pool = ClusterPool(address)
        self.address = address
        self._games = list(games)
        self._codes = {info.name: (codes or {}).get(info.name) or game_code(info) for info in self._games}
        self._bots = list(bots)
        # The hash a bot was loaded with: its games' ids hold it, so a worker must play that content
        # (a bot loader of a plugin must hash as kothkit.bots.folders.content_hash does for --cluster).
        self._want = {b.name: b.hash or _bot_hash(b) for b in self._bots}
        self._note = note or (lambda text: None)
        # Reentrant: checking a worker that joined (under the lock) packs the bots it lacks.
        self._lock = threading.RLock()
        self._packs: dict[str, bytes] = {}
        self._checked: set[str] = set()
        #: The workers that failed the check, and why (for the log and the admin page).
        self._refused: dict[str, str] = {}
        self._seen_at = 0.0
        self._reported = time.monotonic()
        self._closed = False
        #: Key -> the Dask future, and what the task plays or builds (for the log and the admin page).
        self._futures: dict[str, object] = {}
        self._doing: dict[str, str] = {}
        #: Key -> the checked workers it may run on, and its future as the caller holds it.
        self._pinned: dict[str, tuple[frozenset[str], cf.Future]] = {}
        #: Dask futures of work failed by _orphans, to cancel (see capacity).
        self._cancel: list[object] = []
        #: Never grows: the scheduler itself replaces a lost worker's tasks.
        self.generation = 0
        try:
            if strict:
                self._check_all()
            else:
                self._look(force=True)
        except BaseException:
            self.pool.close()
            raise
        if not self._checked:
            self.pool.close()
            raise ClusterError(f"no worker of the Dask cluster at {address} can play the challenges")

    def __enter__(self) -> ClusterExecutor:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- workers ---------------------------------------------------------------------------------
    def _check(self, workers: list[str] | None) -> dict[str, list[str]]:
        """Check ``workers`` (None: all): what each lacks, by worker."""
        import kothkit

        problems: dict[str, list[str]] = {}
        for info in self._games:
            try:
                seen = self.pool.client.run(probe, info.name, self._bots, self._want, self._tools, workers=workers,
                                            on_error="return")
            except (OSError, TimeoutError) as e:
                raise ClusterError(f"the workers of {self.address} did not answer: {e}") from None
            for w, why in self._ship(seen).items():
                problems.setdefault(w, []).extend(why)
            for w, got in sorted(seen.items()):
                found = problems.setdefault(w, [])
                if got is None or isinstance(got, BaseException):
                    found.append(f"worker {w} failed the check: {type(got).__name__}: {got}")
                else:
                    found += _problems(w, got, kothkit.__version__, self._codes[info.name], self._want,
                                       self._jail)
            stateful = sorted(b.name for b in self._bots if b.stateful)
            away = sorted(w for w, got in seen.items() if isinstance(got, dict) and got.get("machine") != machine())
            if stateful and away:
                for w in away:
                    problems[w].append(_away(stateful, [w]))
        return problems

    def _check_all(self) -> None:
        """Check every worker there now; a :class:`ClusterError` naming those that fail."""
        problems = self._check(None)
        if not problems:
            raise ClusterError(f"the Dask cluster at {self.address} has no workers")
        found = [p for w in sorted(problems) for p in problems[w] if not p.startswith("stateful bots")]
        stateful = sorted(b.name for b in self._bots if b.stateful)
        away = sorted(w for w, why in problems.items() if any(p.startswith("stateful bots") for p in why))
        if away and not found:
            found.append(_away(stateful, away))
        if found:
            shown = found[:10] + ([f"... and {len(found) - 10} more"] if len(found) > 10 else [])
            raise ClusterError("the cluster cannot play this tournament:\n  " + "\n  ".join(shown))
        self._checked = set(problems)

    def _ship(self, seen: dict) -> dict[str, list[str]]:
        """Send each bot a worker lacks (no such path there) as a tar; what went wrong, by worker."""
        problems: dict[str, list[str]] = {}
        for b in self._bots:
            lacking = sorted(w for w, got in seen.items()
                             if isinstance(got, dict) and got.get("bots", {}).get(b.name) == "missing")
            if not lacking:
                continue
            if b.stateful:
                for w in lacking:
                    problems.setdefault(w, []).append(f"worker {w} lacks stateful bot {b.name}, whose state "
                                                      f"cannot travel")
                continue
            got = self.pool.client.run(receive, b, self._pack_of(b), workers=lacking, on_error="return")
            for w, why in sorted(got.items()):
                if why is not None:
                    problems.setdefault(w, []).append(f"worker {w} could not take bot {b.name} sent there: {why}")
                else:
                    seen[w]["bots"][b.name] = self._want[b.name]
        return problems

    def _look(self, force: bool = False) -> None:
        """Check the workers that joined since the last look (at most every WORKERS_EVERY s)."""
        now = time.monotonic()
        if not force and now - self._seen_at < WORKERS_EVERY:
            return
        self._seen_at = now
        workers = set(self.pool.workers)
        new = sorted(workers - self._checked - self._refused.keys())
        gone = self._checked - workers
        if gone:
            self._note(f"cluster: workers left: {', '.join(sorted(gone))}")
            self._checked -= gone
            self._orphans()
        for w in self._refused.keys() - workers:
            del self._refused[w]
        if not new:
            return
        problems = self._check(new)
        for w in new:
            if problems.get(w):
                self._refused[w] = "; ".join(problems[w])
                self._note("cluster: worker left idle: " + self._refused[w])  # (each problem names the worker)
            elif w in problems:
                self._checked.add(w)
                self._note(f"cluster: worker {w} joined")

    def _orphans(self) -> None:
        """Fail the work pinned to workers that all left (BrokenProcessPool: the caller plays it
        again): Dask would keep it waiting for those very addresses, and a worker restarted comes
        back under another."""
        for key, (workers, out) in list(self._pinned.items()):
            if workers & self._checked:
                continue
            del self._pinned[key]
            self._doing.pop(key, None)
            fut = self._futures.pop(key, None)
            if fut is not None:  # (cancelled by capacity(), out of the lock: a cancel waits for the scheduler)
                self._cancel.append(fut)
            if not out.done():
                out.set_exception(BrokenProcessPool("the workers it was given left the cluster"))

    def capacity(self) -> int:
        """Work to keep in flight: one per checked worker (each plays one batch at a time)."""
        with self._lock:
            if not self._closed:
                try:
                    self._look()
                except (OSError, TimeoutError, ClusterError) as e:
                    self._note(f"cluster: cannot reach the scheduler: {e}")
            n = max(1, len(self._checked))
            cancel, self._cancel = self._cancel, []
            report = not self._closed and self._build is not None and time.monotonic() - self._reported >= REPORT_EVERY
            if report:
                self._reported = time.monotonic()
        for fut in cancel:
            try:
                fut.cancel()  # type: ignore[attr-defined]
            except Exception as e:  # noqa: BLE001 - a scheduler gone: the task goes with it
                self._note(f"cluster: cannot cancel a task of a worker that left: {e}")
        if report:
            doing = self.workers()
            self._note(f"cluster: {len(doing)} workers: " + "; ".join(
                f"{w} {', '.join(what) if what else 'idle'}" for w, what in doing.items()))
        return n

    def workers(self) -> dict[str, list[str]]:
        """Each checked worker and what it plays or builds now."""
        try:
            processing = self.pool.client.processing()
        except Exception:  # noqa: BLE001 - a cluster going away has nothing to show
            return {}
        with self._lock:
            doing = dict(self._doing)
            return {w: [doing[k] for k in processing.get(w, ()) if k in doing] for w in sorted(self._checked)}

    def refused(self) -> dict[str, str]:
        """The workers that failed the check (left idle while they stay), and why."""
        with self._lock:
            return dict(self._refused)

    # -- work ------------------------------------------------------------------------------------
    def _pack_of(self, b: BotSpec) -> bytes:
        """``b``'s packed folder (packed once, by content hash)."""
        with self._lock:
            packed = self._packs.get(b.hash)
        if packed is None:
            packed = _pack(b)
            with self._lock:
                self._packs[b.hash] = packed
        return packed

    def _submit(self, fn, what: str, *args) -> cf.Future:
        out: cf.Future = cf.Future()
        key = f"kothkit-{fn.__name__}-{uuid.uuid4().hex}"
        with self._lock:
            if self._closed:
                raise RuntimeError("the cluster executor is closed")
            workers = sorted(self._checked)
            if not workers:
                # (Dask takes an empty list as no restriction: the work could go to a refused worker.)
                out.set_exception(BrokenProcessPool("no checked worker in the cluster now"))
                return out
            self._doing[key] = what
        fut = self.pool.client.submit(fn, *args, key=key, pure=False, workers=workers, allow_other_workers=False)
        with self._lock:
            self._futures[key] = fut
            self._pinned[key] = (frozenset(workers), out)

        def done(f) -> None:
            with self._lock:
                self._doing.pop(key, None)
                self._futures.pop(key, None)
                self._pinned.pop(key, None)
            if out.done() or not out.set_running_or_notify_cancel():
                return  # (failed already, its workers gone: see _orphans)
            try:
                out.set_result(f.result())
            except BaseException as e:
                from distributed import KilledWorker

                # Workers died with it more often than the scheduler allows: the caller plays it
                # again (with its bots isolated, as for a local worker that died).
                out.set_exception(BrokenProcessPool(str(e)) if isinstance(e, KilledWorker) else e)

        fut.add_done_callback(done)
        return out

    def play(self, tasks, rows: bool = True, pondering: bool | None = None) -> cf.Future:
        """A future of ``tasks`` played on a worker: (rows or records, seconds played).  Trusted
        function bots play isolated: a Dask worker runs tasks in a thread, where an in-process
        bot that overran could not be interrupted."""
        tasks = [t.isolated() for t in tasks]
        packs = {}
        if self._build is not None:
            packs = {b.hash: self._pack_of(b) for t in tasks for b in t.players}
        what = " vs ".join(b.name for b in tasks[0].players) if tasks else "nothing"
        what += f" (+{len(tasks) - 1})" if len(tasks) > 1 else ""
        return self._submit(play_sent, what, tasks, packs, rows, pondering)

    def build(self, folder: str, timeout: float, memory_mb: int | None = None,
              processes: int | None = None) -> cf.Future:
        """A future of the build of ``folder`` on a worker, within the challenge's limits: (ok,
        output, seconds)."""
        import hashlib

        packed = _pack_folder(Path(folder))
        return self._submit(build_bot, f"build {Path(folder).parent.name}/{Path(folder).name}", self._build,
                            folder, timeout, memory_mb, processes, hashlib.sha256(packed).hexdigest()[:32], packed)

    def run_in(self, folder: str, fn, *args) -> cf.Future:
        """A future of ``fn(folder, *args)`` on a worker, with the folder (built) there: a brain's
        check before the ladder."""
        import hashlib

        packed = _pack_folder(Path(folder))
        return self._submit(run_built, f"check {Path(folder).parent.name}/{Path(folder).name}", fn, self._build,
                            folder, hashlib.sha256(packed).hexdigest()[:32], packed, *args)

    def restart(self) -> None:
        """Nothing to do: the scheduler replaces a lost worker's tasks itself."""

    def interrupt(self) -> None:
        """Ctrl-C: the batches on the workers are dropped (see :meth:`cancel`)."""

    def cancel(self) -> None:
        """Cancel the work still queued or running (the cluster itself stays up: :meth:`close`)."""
        with self._lock:
            pending = list(self._futures.values())
            self._futures.clear()
        if pending:
            try:
                self.pool.client.cancel(pending)
            except Exception:  # noqa: BLE001 - a cluster already gone has nothing left to cancel
                pass

    def close(self, timeout: float | None = None) -> None:
        with self._lock:
            self._closed = True
            self._packs.clear()
        self.cancel()
        self.pool.close()


def _away(stateful: list[str], away: list[str]) -> str:
    return (f"stateful bots ({', '.join(stateful)}) keep their state in their folder, so all their games must "
            f"run on one machine, and workers {', '.join(away[:5])} run on another than the judge's: run them "
            f"with --jobs, or with workers on this machine")
