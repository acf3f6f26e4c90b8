"""The host: one long-running player for several challenges, behind ``kothkit serve``.

A :class:`Host` keeps every challenge it serves current.  Folder challenges are
rescanned every couple of seconds and only changed games are played (a game's id
holds both bots' content hashes, so the journal's incremental re-run does it; a
stateful answer's is the code it was given, :mod:`kothkit.playing.keeping`).
Submissions are stored as bot folders, built contained with the challenge's build
time limit, and the author's newest brain that builds replaces their previous one:
only its games are played, and the old brain's games drop out of the standings.
All challenges share one executor (:mod:`kothkit.playing.executor`, as ``kothkit run``'s):
``jobs`` slots on this machine or the workers of a Dask cluster
(:class:`kothkit.playing.cluster.ClusterExecutor`), builds first, then a new or changed
bot's games, the challenges taking turns (:mod:`kothkit.serve.queue`).  The schedule
is :mod:`kothkit.playing.schedule`'s (kept by :class:`~kothkit.playing.schedule.Planned`),
the ranking :mod:`kothkit.scoring`'s, and every game is read and written through
:class:`~kothkit.store.journal.Journal`.

A brain goes through these states: submitted, built (on a worker, with a cluster), then
playing (its games scheduled, :meth:`Host._reschedule`), done.  Restart loses nothing: the work queue is what the
state says is not done yet (submissions not built, scheduled games not in the
journal), so it is redone, and a game already stored is never played or counted
twice.

One thread (the dispatcher) owns the journals and the slots: it scans, starts
builds and games, and stores what comes back.  A change of a challenge's bots
schedules only the changed bots' pairs (milliseconds, for a new submission), in the
dispatcher; a whole schedule (seconds, for some 40,000 games: at the start) is
planned in a thread of its own, and the dispatcher applies the plan.  The public methods (the web's threads) read what
the dispatcher keeps in memory under a lock, and never wait for a game, except
:meth:`Host.wait`, which waits for the scoreboard to change.

A challenge's ``[serve]`` table may give ``opens`` and ``closes``: submissions are taken only
between them (:meth:`Host.phase`).  After ``closes`` the games still due are played (the builds
of brains submitted in time too), and then the standings are final.  An admin may rejudge a
submission (its games are deleted from the journal and played again) or disable a brain (it
leaves the round robin); both are done by the dispatcher, which owns the journals.

A script that makes a Host must do so under ``if __name__ == "__main__":`` (as
``kothkit serve``'s command does): the workers are started with ``spawn``, which
imports the script's module again in each of them.
"""

from __future__ import annotations

import bisect
import concurrent.futures as cf
import datetime as dt
import enum
import itertools
import json
import os
import queue
import re
import sqlite3
import sys
import threading
import time
import traceback
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from kothkit.scoring import Tally
from kothkit.serve import i18n
from kothkit.serve import settings as serve_settings
from kothkit.serve.errors import BadFileName, RateLimited, SubmitError, TooLarge, UnknownLanguage
from kothkit.serve.i18n import _
from kothkit.serve.queue import GameQueue, pick
from kothkit.serve.settings import Kind, ServeSettings, SettingsError
from kothkit.serve.submissions import Store
from kothkit.serve.views import (
    Cell,
    ChallengeInfo,
    Crosstable,
    GameSummary,
    Language,
    ScoreboardRow,
    Status,
    Submission,
)

__all__ = ["Host", "SubmitError", "TooLarge", "BadFileName", "UnknownLanguage", "RateLimited", "SettingsError",
           "ChallengeInfo", "Crosstable", "Cell", "GameSummary", "Language", "ScoreboardRow", "Submission"]



class PhaseClosed(SubmitError):
    """Submissions are not taken now: before the challenge's ``opens`` or after its ``closes``."""


class Period(enum.StrEnum):
    """A :class:`Phase`'s name."""

    BEFORE = "before"
    OPEN = "open"
    CLOSED = "closed"
    FINAL = "final"


@attrs.frozen
class Phase:
    """Where a challenge is in its contest: ``open`` (submissions taken), ``before`` (``opens`` is
    to come), ``closed`` (``closes`` passed, games still due) or ``final`` (closed, nothing due:
    the standings are final).  ``text`` says it in a few words, with the date."""

    name: Period
    opens: dt.datetime | None
    closes: dt.datetime | None
    text: str

    @property
    def final(self) -> bool:
        return self.name == Period.FINAL

    @property
    def taking(self) -> bool:
        return self.name == Period.OPEN


def _date(d: dt.datetime) -> str:
    return d.isoformat(sep=" ", timespec="minutes")


if TYPE_CHECKING:
    from kothkit.game import GameInfo
    from kothkit.limits import Limits
    from kothkit.playing.executor import Executor
    from kothkit.playing.schedule import Changes, Planned
    from kothkit.store.journal import Journal

#: Seconds between two scans of a folder challenge's bots.
SCAN_EVERY = 2.0
#: Times a game or build is tried again at once after its worker died (or the game failed in
#: it), before the host gives up on it: a build until the host's next start, a game for a while.
RETRIES = 2
#: Seconds a game that failed RETRIES + 1 times in a row waits before it is tried again (a worker
#: or a judge failing for a while, not a game that fails every time), doubling each time it
#: fails again up to LATER_MAX; after LATER_ROUNDS waits it is left unplayed until the schedule is
#: next made (a submission, the host's next start), which tries it RETRIES + 1 times more.
LATER = 30.0
LATER_MAX = 600.0
LATER_ROUNDS = 5
#: Seconds start() waits for the challenges' state (journals read, folders scanned).
START_TIME = 120.0
#: Bots added, changed or gone at most for a new schedule to be made in the dispatcher's thread
#: (each costs its pairs' games: some milliseconds at the course's 200 brains); more go to a thread.
SMALL_CHANGE = 4


@attrs.define(eq=False)
class _Served:
    """One challenge as the host keeps it.  Written by the dispatcher thread, under the host's lock."""

    name: str
    folder: Path
    settings: ServeSettings
    info: GameInfo
    limits: Limits
    rules: dict
    rounds: int
    seed: int | None
    journal_path: Path
    #: Folder challenges: where the bots are (the challenge's ``bots``).
    entries: list[str]
    #: The bots in the round robin now, and when each last changed (its submission's time, or its
    #: folder's latest change).
    bots: dict = attrs.field(factory=dict)
    latest: dict = attrs.field(factory=dict)
    #: Submissions: bot -> its author's login (every bot ever submitted), and the active submission's id.
    logins: dict = attrs.field(factory=dict)
    active: dict = attrs.field(factory=dict)
    #: Folder bots left out (do not load or build): one line each.
    errors: tuple = ()
    #: Folder bots whose build failed, by (name, hash): the build's message.
    failed: dict = attrs.field(factory=dict)
    queue: GameQueue = attrs.field(factory=GameQueue)
    #: Bots whose games are played first (new or changed, until their games are all played).
    fresh: set = attrs.field(factory=set)
    #: The current schedule (kothkit.playing.schedule.Planned: its games, their places), the bots
    #: it was made of (name -> hash), and its games not counted.
    plan: Planned | None = None
    planned: dict = attrs.field(factory=dict)
    unplayed: set = attrs.field(factory=set)
    #: Whether counted games may hold an index from before the pairs' order last changed.
    stale: bool = False
    #: The current schedule's games found in the journal.
    counted: dict = attrs.field(factory=dict)
    #: Games being played: id -> task.
    inflight: dict = attrs.field(factory=dict)
    #: Games that failed again and again, waiting to be tried again: id -> (monotonic time, task).
    later: dict = attrs.field(factory=dict)
    #: Builds to start: ("submission", id) | ("rebuild", id) | ("folder", path, name, hash).
    builds: deque = attrs.field(factory=deque)
    #: Folder bots being built or queued, by (name, hash); and those built by a cluster's workers
    #: (their build output is on the workers' machines, not necessarily here).
    building: set = attrs.field(factory=set)
    built: set = attrs.field(factory=set)
    #: Builds taken from ``builds`` and not finished (in a slot).
    running_builds: int = 0
    #: The standings of the counted games, kept game by game.
    board: Tally | None = None
    version: int = 0
    #: (version, standings) and (version, crosstable), worked out when asked.
    cache: tuple | None = None
    table: tuple | None = None
    #: The counted games, oldest first (games are stored as they finish: a new one goes last).
    recent: list = attrs.field(factory=list)
    # Owned by the dispatcher thread:
    journal: Journal | None = None
    #: A folder challenge's records of its stateful bots' folders (kothkit.playing.keeping.Records).
    kept: Any = None
    code: dict | None = None
    run_id: int | None = None
    run_stored: int = 0
    run_bots: list | None = None
    #: Bots added or changed since the last schedule (None: nothing changed).
    changed: set | None = None
    #: The thread planning a new schedule, the bots changed since it started (None: none), and
    #: the games stored meanwhile (None: no plan is being made).
    planner: threading.Thread | None = None
    again: set | None = None
    stored_since: list | None = None

    @property
    def kind(self) -> str:
        return self.settings.kind

    def total_per_bot(self) -> int:
        return 2 * self.rounds * max(0, len(self.bots) - 1)


@attrs.frozen
class _Plan:
    """A challenge's round robin as scheduled from its bots (see Host._plan): what changed since
    the schedule before it, or (``full``) the whole of it."""

    fresh: set
    full: bool
    plan: Planned
    changes: Changes
    #: The new games found in the journal (every game's, when ``full``).
    found: list
    #: The games not in the journal, a new bot's first.
    first: list
    rest: list
    #: Games that were in play when it was planned.
    skipped: list


def _safe_name(text: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.")[:60]
    return name or "challenge"


def _recent_key(s: GameSummary) -> tuple:
    """The order of the counted games: as they were stored (a game's index at the time it was
    counted settles a tie)."""
    return s.time, -s.index


def _folder_time(folder: Path) -> float | None:
    """The latest change among a bot folder's files (build output and state left out)."""
    from kothkit.bots.folders import HASH_IGNORE, stats_below

    return max((st.st_mtime for st in stats_below(folder, 2000, HASH_IGNORE)), default=None)


class Host:
    """Serves ``challenge_dirs`` (folders with a kothkit.toml), keeping its state in ``state_dir``
    (``host.sqlite``, the submissions' folders, the submission challenges' journals), playing
    at most ``jobs`` games (or builds) at once.

    A wrong challenge (its file, its ``[serve]`` table, a game that is not installed) raises
    :class:`SettingsError` naming the file (and line), from the constructor.
    """

    def __init__(self, challenge_dirs: list[Path], state_dir: Path, jobs: int | None = 1,
                 cluster: str | None = None) -> None:
        from kothkit.serve.accounts import DB_FILE, private_file, private_folder

        self.state_dir = Path(state_dir)
        # Hashes, sessions, students' sources: the host's user's alone (0700, the database 0600).
        private_folder(self.state_dir)
        private_file(self.state_dir / DB_FILE)
        #: None: the default (kothkit.procs.cores.default_jobs), set once the challenges are loaded.
        self.jobs = max(1, int(jobs)) if jobs is not None else 0
        self._jobs_given = jobs is not None
        #: What each challenge's games get of the CPU (said at start, shown on the admin page).
        self.cpu: dict[str, str] = {}
        #: Whether the state's mount is nosuid, nodev (said at start).
        self.files = ""
        #: The Dask cluster that plays and builds (``ADDRESS`` or ``local:N``), or None: ``jobs`` slots here.
        self.cluster = cluster
        #: Workers of the cluster must have the full jail (kothkit.procs.contain.jail_gaps): set by
        #: kothkit serve for submissions challenges, unless --allow-weak-jail.
        self.full_jail = False
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._served: list[_Served] = []
        names: set[str] = set()
        for d in challenge_dirs:
            c = self._load(Path(d), names)
            names.add(c.name)
            self._served.append(c)
        self._by_name = {c.name: c for c in self._served}
        #: A core left free for the Play page's bots (kothkit.procs.cores.play_core), never the ladder's.
        self.play_core = False
        if not self._jobs_given:
            from kothkit.procs.cores import default_jobs

            # A core per seat where a game allows pondering (issue 36): one game per two cores; and
            # one core for the Play page where the machine has more than one game needs.
            n = len(os.sched_getaffinity(0))
            pondering = any(c.info.pondering and c.limits.pin_cpu for c in self._served)
            self.play_core = n - 1 >= (2 if pondering else 1)
            self.jobs = default_jobs(pondering, cores=n - int(self.play_core))
        self._store = Store(self.state_dir)
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()
        self._wake = threading.Event()
        self._ready = threading.Event()
        #: Where games and builds run: this machine's slots, or the cluster's workers (one interface).
        self._slots: Executor | None = None
        self._inflight: dict[cf.Future, tuple] = {}
        #: (challenge, plan) from the planning threads, applied by the dispatcher.
        self._planned: queue.Queue = queue.Queue()
        self._turn = 0
        #: Times each game or build was lost with its worker (see RETRIES), and the times a game
        #: was put off since the host started (see LATER).
        self._tries: dict = {}
        self._waits: dict[str, int] = {}
        #: The last unexpected error of the dispatcher (it carries on), for the host's log.
        self.problem: str | None = None
        #: Work for the dispatcher from the web's threads (an admin's rejudge, a brain disabled).
        self._commands: queue.Queue = queue.Queue()

    # -- loading ----------------------------------------------------------------------------
    def _load(self, folder: Path, taken: set[str]) -> _Served:
        from kothkit.playing import challenge as challenges
        from kothkit.playing.settings import SettingsError as Unplayable
        from kothkit.playing.settings import game_of, journal_path
        from kothkit.plugins import PluginError, get_game

        try:
            ch = challenges.load(folder)
        except challenges.ChallengeError as e:
            raise SettingsError(str(e)) from None
        settings = serve_settings.load(ch.path)
        try:
            info = get_game(ch.game)
        except PluginError as e:
            raise SettingsError(f"{ch.path}: {e}") from None
        try:  # the rules and limits as kothkit run takes them: the same games, the same ids
            game = game_of(info, ch)
        except Unplayable as e:
            raise SettingsError(str(e)) from None
        from kothkit.serve import validation

        problem = validation.settings_problem(info, settings)
        if problem is not None:
            raise SettingsError(f"{ch.path}: [serve] {problem}")
        base = name = _safe_name(ch.folder.resolve().name)
        for k in itertools.count(2):
            if name not in taken:
                break
            name = f"{base}-{k}"
        if settings.kind == Kind.SUBMISSIONS:
            journal = ch.journal or self.state_dir / "journals" / f"{name}.sqlite"
        else:  # where kothkit run keeps the challenge's games
            journal = journal_path(info.name, ch)
        return _Served(name=name, folder=ch.folder, settings=settings, info=info, limits=game.limits,
                       rules=dict(game.rules), rounds=ch.rounds or info.rounds, seed=ch.seed,
                       journal_path=Path(journal), entries=[str(b) for b in ch.bots],
                       # Versions go on growing across restarts: a page open before one waits for a
                       # version above the one it saw, and gets it.
                       version=time.time_ns() // 1_000_000)

    def _get(self, name: str) -> _Served:
        try:
            return self._by_name[name]
        except KeyError:
            raise KeyError(f"no challenge {name!r}") from None

    # -- running ----------------------------------------------------------------------------
    def start(self) -> None:
        """Start playing in a background thread.  Returns once every challenge's state is read (its
        journal, its submissions, its folders scanned), so that the first page is right."""
        if self._thread is not None:
            return
        from kothkit.playing import executor

        if self.cluster is not None:  # (a ClusterError, naming what is wrong, before anything starts)
            from kothkit.playing.cluster import ClusterExecutor

            self._slots = ClusterExecutor(self.cluster, [c.info for c in self._served], build=executor.build,
                                          note=self._log, tools=self._tools(), jail=self.full_jail)
        self._store.requeue_building()
        self._stopping.clear()
        self._ready.clear()
        from kothkit.procs.contain import fair_cpu

        pin = any(c.limits.pin_cpu for c in self._served)
        # A game that allows pondering (the course's Gomoku) gets a core per bot where the machine
        # has two per slot, as in kothkit run.
        per_job = max((fair_cpu(c.info.pondering, self.jobs, c.limits.pin_cpu)[0] for c in self._served), default=1)
        if self.cluster is None:
            for c in self._served:  # said at start, and on the admin page
                self.cpu[c.name] = fair_cpu(c.info.pondering, self.jobs, c.limits.pin_cpu)[1]
                self._log(f"cpu: {c.name}: {self.cpu[c.name]}")
            from kothkit.procs.contain import cpu_quota_base
            from kothkit.procs.cores import PLAY_SHARE

            quota = (f"under a CPU quota of {PLAY_SHARE:g} core" if cpu_quota_base() is not None else
                     "with no CPU quota (no writable cgroup v1 cpu hierarchy here)")
            self.cpu["Play"] = (f"the Play page's bots have a core the ladder leaves free, {quota}"
                                if self.play_core else
                                f"the Play page's bots share a core with the ladder's games (no core left for "
                                f"them: --jobs, or the machine's cores), {quota}")
            self._log(f"cpu: Play: {self.cpu['Play']}")
        from kothkit.procs.defuse import nosuid

        # The host side's own guard (docs/hosting.md): set-id bits mean nothing on the state's mount.
        self.files = (f"{self.state_dir} is on a nosuid, nodev mount" if nosuid(self.state_dir) else
                      f"{self.state_dir} is NOT on a nosuid, nodev mount (docs/hosting.md): bots' files are "
                      f"defused after every build and game, but mount it nosuid,nodev too")
        self._log(f"files: {self.files}")
        if self._slots is None:
            # Spawned: the host has threads (see kothkit.playing.executor); Ctrl-C is the host's to act on.
            self._slots = executor.LocalExecutor(self.jobs, pin_cpu=pin, cores_per_job=per_job, start="spawn",
                                                 interrupts=False, on_notice=self._log)
        self._thread = threading.Thread(target=self._run, name="kothkit-host", daemon=True)
        self._thread.start()
        self._ready.wait(START_TIME)

    def stop(self, timeout: float = 10.0) -> None:
        """Stop: games and builds in progress are killed (they are redone at the next start),
        every process started is reaped, the thread joined; returns within about ``timeout`` s."""
        if self._thread is None:
            return
        end = time.monotonic() + timeout
        self._stopping.set()
        self._wake.set()
        if self._slots is not None:
            self._slots.close(timeout / 2)
        self._thread.join(max(0.1, end - time.monotonic()))
        for c in self._served:  # (they stop at their next chunk of games)
            if c.planner is not None:
                c.planner.join(max(0.1, end - time.monotonic()))
        self._thread = None
        self._slots = None
        self._inflight.clear()
        while not self._planned.empty():
            self._planned.get_nowait()
        with self._lock:
            for c in self._served:
                for t in c.inflight.values():
                    c.queue.done(t)
                c.inflight.clear()
                c.building.clear()
                c.running_builds = 0
                c.planner = c.again = c.stored_since = None
                self._bump(c)

    def _bump(self, c: _Served) -> None:
        """Something on ``c``'s scoreboard changed (call with the lock held)."""
        c.version += 1
        self._changed.notify_all()

    def _run(self) -> None:
        try:
            for c in self._served:
                try:
                    self._open(c)
                except Exception:  # noqa: BLE001 - one broken challenge must not stop the others
                    self._note(f"{c.name}: {traceback.format_exc()}")
        finally:
            self._ready.set()
        next_scan = time.monotonic() + SCAN_EVERY
        try:
            while not self._stopping.is_set():
                try:
                    if time.monotonic() >= next_scan:
                        for c in self._served:
                            if c.kind == Kind.FOLDER and c.journal is not None:
                                self._scan(c)
                        next_scan = time.monotonic() + SCAN_EVERY
                    self._release()
                    self._fill()
                    if self._inflight:
                        done, _ = cf.wait(list(self._inflight), timeout=0.2, return_when=cf.FIRST_COMPLETED)
                        self._finish(done)
                        for c in self._served:
                            if c.changed is not None:
                                fresh, c.changed = c.changed, None
                                self._reschedule(c, fresh)
                    else:
                        self._wake.wait(0.2)
                        self._wake.clear()
                    self._take_commands()
                    self._take_plans()
                except Exception:  # noqa: BLE001 - the host carries on; the error is kept for its log
                    self._note(traceback.format_exc())
                    self._stopping.wait(1.0)
        finally:
            for c in self._served:
                if c.journal is not None:
                    c.journal.close()
                    c.journal = None

    def _take_plans(self) -> None:
        """Apply the schedules planned meanwhile; plan again where bots changed since."""
        while True:
            try:
                c, plan = self._planned.get_nowait()
            except queue.Empty:
                return
            c.planner = None
            self._apply(c, plan)
            if c.again is not None and not self._stopping.is_set():
                fresh, c.again = c.again, None
                self._reschedule(c, fresh)

    def _take_commands(self) -> None:
        while True:
            try:
                command = self._commands.get_nowait()
            except queue.Empty:
                return
            try:
                command()
            except Exception:  # noqa: BLE001 - the host carries on; the error is kept for its log
                self._note(traceback.format_exc())

    def _note(self, text: str) -> None:
        self.problem = text
        self._log(text)

    def _tools(self) -> list[str]:
        """The programs the served languages build and run with (``gcc``, ``python3``...), which
        every worker must have: a build that failed for want of one would be its author's loss."""
        return sorted({argv[0] for c in self._served if c.kind == Kind.SUBMISSIONS
                       for lang in c.settings.languages for argv in (lang.build, lang.command)
                       if argv and "/" not in argv[0]})

    @staticmethod
    def _log(text: str) -> None:
        print(f"kothkit host: {text}", file=sys.stderr, flush=True)

    def workers(self) -> dict[str, list[str]]:
        """The cluster's workers and what each plays or builds now (empty with this machine's slots)."""
        pool = self._slots
        return pool.workers() if pool is not None else {}

    def _open(self, c: _Served) -> None:
        """Read ``c``'s state: its journal (seed), its submissions or its bot folders; then schedule."""
        from kothkit.playing.settings import choose_seed
        from kothkit.plugins import game_code
        from kothkit.store.journal import Journal

        if c.kind == Kind.SUBMISSIONS and c.journal_path.parent == self.state_dir / "journals":
            from kothkit.serve.accounts import private_file, private_folder

            private_folder(c.journal_path.parent)
            private_file(c.journal_path)
        c.journal = Journal(c.journal_path)
        if c.kind == "folder":  # (a stateful answer is the code it was given, not the files it keeps)
            from kothkit.playing.keeping import Records

            c.kept = Records(c.journal, c.journal_path)
        c.code = game_code(c.info)
        with self._lock:  # (a host started again: what was queued is read again below)
            c.builds.clear()
            c.building.clear()
            c.active.clear()
            c.plan, c.planned = None, {}  # (and its schedule is made afresh: the state may have changed)
        # The challenge file's seed (set when read), else the journal's last, else a fresh one.
        c.seed = choose_seed(c.info.name, challenge_seed=c.seed, journal=c.journal).value
        if c.kind == Kind.FOLDER:
            self._scan(c, force=True)
            return
        from kothkit.bots.build import is_built
        from kothkit.bots.folders import BotError, load_folder

        bots, latest = {}, {}
        with self._lock:
            for row in self._store.list(c.name):
                c.logins.setdefault(row.bot, row.login)
            for row in self._store.with_status(c.name, Status.ACTIVE):
                try:
                    spec = load_folder(self._store.folder(row))
                except (BotError, OSError) as e:
                    self._store.set_status(row.id, Status.BUILD_FAILED, build_output=f"the brain cannot be loaded: {e}")
                    continue
                if spec.build and not is_built(spec):
                    c.builds.append(("rebuild", row.id))  # its build output is gone: built again first
                    continue
                bots[row.bot], latest[row.bot] = spec, row.time
                c.active[row.bot] = row.id
            for row in self._store.with_status(c.name, Status.QUEUED):
                c.builds.append(("submission", row.id))
            c.bots, c.latest = bots, latest
        self._reschedule(c, set(), wait=True)

    def _loaders(self):
        from kothkit.plugins import plugin_manager

        loaders = []
        for group in plugin_manager().hook.kothkit_bot_loaders():
            loaders.extend(group)
        return loaders

    def _scan(self, c: _Served, force: bool = False) -> None:
        """Load ``c``'s bot folders again: queue the builds that are needed, and schedule again if a
        bot was added, changed or removed."""
        from kothkit.bots.build import is_built
        from kothkit.bots.folders import BotKind, load_bots

        loaded = load_bots(c.entries, self._loaders())
        errors = [str(e) for e in loaded.errors]
        ready = {}
        found = list(loaded.bots)
        if c.kept is not None:
            with self._lock:
                busy = {b.name for t in c.inflight.values() for b in t.players}
                current = dict(c.bots)
            found = c.kept.identify(found, busy, current)
        for b in found:
            key = (b.name, b.hash)
            if b.kind == BotKind.FUNCTION and not c.info.function_bots:
                errors.append(f"{b.origin or b.path}: {c.info.name} does not take Python function bots")
            elif b.name in c.info.reserved_names:
                errors.append(f"{b.origin or b.path}: the name {b.name!r} is reserved: "
                              f"{c.info.name}'s protocol uses it")
            elif b.build and key not in c.built and not is_built(b):
                if key in c.failed:
                    errors.append(c.failed[key])
                elif key not in c.building:
                    with self._lock:
                        c.building.add(key)
                        c.builds.append(("folder", str(b.path), b.name, b.hash))
            else:
                ready[b.name] = b
        with self._lock:
            changed = {n: b.hash for n, b in ready.items()} != {n: b.hash for n, b in c.bots.items()}
            fresh = {n for n, b in ready.items() if n not in c.bots or c.bots[n].hash != b.hash}
            if changed:
                c.queue.drop({n for n, b in c.bots.items() if n not in ready or ready[n].hash != b.hash})
                c.bots = ready
                c.latest = {n: _folder_time(b.path if b.path.is_dir() else b.path.parent) for n, b in ready.items()}
            if tuple(errors) != c.errors:
                c.errors = tuple(errors)
                self._bump(c)
        if changed or force:
            self._reschedule(c, fresh, wait=force)

    def _reschedule(self, c: _Served, fresh: set[str], wait: bool = False) -> None:
        """``c``'s bots changed: its round robin is scheduled again; the games found in the journal
        count, the others are queued (a new or changed bot's first).

        Only the pairs of the bots added, changed or gone are worked out (:meth:`_plan`): for a
        few bots (a new submission) that takes milliseconds, and is done here and now.  A whole
        schedule (some 40,000 games at the start, or many bots changed at once) takes seconds, so
        it is planned in a thread of its own, on a connection of its own, while this thread goes
        on storing games and starting others; the plan is applied here when it is ready
        (:meth:`_apply`).  ``wait``: plan it now, whatever it costs (at start)."""
        with self._lock:
            bots = tuple(sorted(c.bots.values(), key=lambda b: b.name))
            inflight = set(c.inflight)
            fresh = (c.fresh | fresh) & set(c.bots)
            now = {b.name: b.hash for b in bots}
            changes = sum(now.get(n) != h for n, h in c.planned.items()) + len(now.keys() - c.planned.keys())
        if c.planned and c.planner is None and changes <= SMALL_CHANGE:
            wait = True
        if wait:
            assert c.journal is not None  # (opened by _open)
            self._apply(c, self._plan(c, bots, fresh, inflight, c.journal))
            return
        if c.planner is not None:  # a plan is being made: another follows it, with these bots too
            c.again = (c.again or set()) | fresh
            return
        c.stored_since = []

        def plan() -> None:
            from kothkit.store.journal import Journal

            result = None
            try:
                with Journal(c.journal_path, readonly=True) as reader:
                    result = self._plan(c, bots, fresh, inflight, reader, stop=self._stopping.is_set)
            except Exception:  # noqa: BLE001 - the host carries on with the schedule it has
                self._note(f"{c.name}: scheduling failed: {traceback.format_exc()}")
            self._planned.put((c, result))
            self._wake.set()

        c.planner = threading.Thread(target=plan, name=f"kothkit-host-plan-{c.name}", daemon=True)
        c.planner.start()

    def _plan(self, c: _Served, bots: tuple, fresh: set[str], inflight: set[str], journal: Journal,
              stop=None) -> _Plan | None:
        """The schedule of ``bots``, changed from the one before it (None if ``stop()`` became true
        meanwhile): kothkit.playing.schedule.Planned works out the changed bots' games alone; their
        games stored in ``journal`` are found, the others queued.  The games of the other bots are
        as they were, and those counted stay counted (the dispatcher counts each game of the
        schedule it stores).  Reads the applied schedule (``c.plan``, ``c.unplayed``), which only
        :meth:`_apply` replaces, and never while a plan is being made."""
        from kothkit.playing.schedule import Planned, Schedule

        assert c.seed is not None  # (the journal's or a fresh one: set by _open)
        full = c.plan is None
        base = c.plan or Planned.empty(Schedule(game=c.info.name, bots=(), seed=c.seed, rounds=c.rounds,
                                                limits=c.limits, rules=c.rules, code=c.code))
        plan, changes = base.change(bots)
        found, unplayed = [], []
        added = [t.id for t in changes.added]
        for i in range(0, len(added), 2048):
            if stop is not None and stop():
                return None
            chunk = added[i:i + 2048]
            rows = {row.id: row for row in journal.summaries(chunk)}
            for gid in chunk:
                row = rows.get(gid)
                if row is None:
                    unplayed.append(gid)
                else:  # the same id: the same bots in the same seats (the id holds them in seat order)
                    found.append(GameSummary.of(row, plan.index(gid)))
        if not full:  # the other games not counted yet (a game stored meanwhile: left out by _apply)
            with self._lock:
                unplayed.extend(gid for gid in c.unplayed if gid not in changes.removed)
        first, rest, skipped = [], [], []
        for t in plan.tasks(unplayed):
            if t.id in inflight:
                skipped.append(t)
            elif t.players[0].name in fresh or t.players[1].name in fresh:
                first.append(t)
            else:
                rest.append(t)
        # A new brain's games in a seeded random order over its opponents, the new brains taking turns.
        first = plan.backlog(first, fresh)
        return _Plan(fresh=fresh, full=full, plan=plan, changes=changes, found=found, first=first, rest=rest,
                     skipped=skipped)

    def _placed(self, c: _Served, games: list[GameSummary]) -> list[GameSummary]:
        """``games`` with their places in the schedule as it is now: a counted game keeps the index
        it had when it was counted, and a new bot's name moves the others (with the lock held)."""
        out = []
        for s in games:
            if c.plan is not None and s.id in c.plan and s.index != (i := c.plan.index(s.id)):
                s = attrs.evolve(s, index=i)
            out.append(s)
        return out

    def _apply(self, c: _Served, plan: _Plan | None) -> None:
        """Make ``plan`` ``c``'s schedule (in the dispatcher thread): with the games stored and
        started since it was planned."""
        from kothkit.bots.folders import entry_of
        from kothkit.playing.schedule import settings_of

        with self._lock:
            stored, c.stored_since = c.stored_since or [], None
        if plan is None:
            return
        bots, j = plan.plan.schedule.bots, c.journal
        assert j is not None and c.seed is not None  # (set by _open)
        dates = self._submitted(c)
        described = [{"name": b.name, "hash": b.hash, "where": entry_of(b),
                      **({"submitted": dates[b.name]} if b.name in dates else {})} for b in bots]
        if len(bots) >= 2 and [(b["name"], b["hash"]) for b in described] != c.run_bots:
            last = j.last_run(c.info.name)
            settings = settings_of(c.limits, c.rules, c.code)
            same = (last is not None
                    and [(b["name"], b["hash"]) for b in json.loads(last["bots"])]
                    == [(b["name"], b["hash"]) for b in described]
                    and json.loads(last["settings"]) == json.loads(json.dumps(settings, default=str))
                    and last["seed"] == c.seed)
            # A run records the bots and settings its games were played with (kothkit show and
            # verify find a game's settings through it); a restart with the same bots goes on with it.
            c.run_id = (last["id"] if last is not None and same
                        else j.start_run(c.info.name, c.seed, settings, described, rounds=c.rounds))
            c.run_bots = [(b["name"], b["hash"]) for b in described]
            c.run_stored = 0
        names = [b.name for b in bots]
        with self._lock:
            if plan.full or c.board is None:
                counted, board, unplayed = {}, Tally(c.info.scoring, names), set()
                recent: list[GameSummary] = []
            else:
                counted, board, unplayed, recent = c.counted, c.board, c.unplayed, c.recent
                dropped = plan.changes.removed
                for gid in dropped:  # the games of the bots changed or gone
                    unplayed.discard(gid)
                    s = counted.pop(gid, None)
                    if s is not None:
                        board.remove(s.bots, s.winner, places=s.seat_places, points=s.seat_points)
                if dropped:
                    recent = [s for s in recent if s.id in counted]
                for n in set(board.bots).difference(names):
                    board.remove_bot(n)
                for n in names:
                    board.add_bot(n)
            index = plan.plan
            unplayed.update(t.id for t in plan.changes.added)
            c.stale = not plan.full and (c.stale or bool(counted) and plan.changes.moved)
            c.plan, c.counted, c.board, c.unplayed = index, counted, board, unplayed
            c.planned = {b.name: b.hash for b in bots}
            # The new pairs' games found in the journal, and the games stored after the plan looked for them.
            new = []
            for s in itertools.chain(plan.found, stored):
                if s.id in index and s.id not in counted:
                    i = index.index(s.id)
                    s = counted[s.id] = s if s.index == i else attrs.evolve(s, index=i)
                    unplayed.discard(s.id)
                    board.add(s.bots, s.winner, places=s.seat_places, points=s.seat_points)
                    new.append(s)
            if len(new) < 256:
                for s in new:
                    bisect.insort(recent, s, key=_recent_key)
            else:
                recent = sorted(recent + new, key=_recent_key)
            c.recent = recent
            inflight = c.inflight
            # (A game put off waits its turn: _release queues it.)
            first = [t for t in plan.first if t.id not in counted and t.id not in inflight and t.id not in c.later]
            rest = [t for t in plan.rest if t.id not in counted and t.id not in inflight and t.id not in c.later]
            for t in plan.skipped:  # in play when planned, and lost since (its worker died)
                if t.id not in counted and t.id not in inflight and t.id not in c.later:
                    (first if not plan.fresh.isdisjoint(b.name for b in t.players) else rest).insert(0, t)
            c.queue.reset(first, rest, (b.name for b in bots if b.stateful))
            c.fresh = {b for b in plan.fresh if any(b in (p.name for p in t.players) for t in first)}
            self._bump(c)
        self._finish_run(c)

    def _finish_run(self, c: _Served) -> None:
        plan = c.plan
        if c.run_id is not None and not len(c.queue) and not any(plan is not None and g in plan for g in c.inflight):
            assert c.journal is not None
            c.journal.finish_run(c.run_id, c.run_stored, len(c.counted) - c.run_stored)

    # -- the slots --------------------------------------------------------------------------
    def _next(self):
        """The next work for a free slot (builds first, then games; challenges in turn), or None."""
        n = len(self._served)
        with self._lock:
            for k in range(n):
                i = (self._turn + k) % n
                c = self._served[i]
                if c.builds:
                    self._turn = i + 1
                    item = c.builds.popleft()
                    c.running_builds += 1
                    if item[0] in ("submission", "rebuild", "check"):
                        row = self._store.get(item[1])
                        if row is None or row.status == Status.DISABLED:  # (an admin disabled it meanwhile)
                            c.running_builds -= 1
                            continue
                        if item[0] == "submission":
                            self._store.set_status(row.id, Status.BUILDING)
                            self._bump(c)
                        return c, item, str(self._store.folder(row))
                    return c, item, item[1]
            found = pick([c.queue for c in self._served], self._turn)
            if found is None:
                return None
            i, task = found
            self._turn = i + 1
            c = self._served[i]
            c.inflight[task.id] = task
            self._bump(c)  # the queue's length is on the page
            return c, task, None

    def _fill(self) -> None:
        pool = self._slots
        if pool is None:  # stopped (stop() gave up waiting for this thread)
            return
        while len(self._inflight) < pool.capacity() and not self._stopping.is_set():
            work = self._next()
            if work is None:
                return
            c, item, folder = work
            try:
                if folder is None:
                    fut = pool.play([item], True, bool(c.info.pondering))
                elif item[0] == "check":
                    from kothkit.serve import validation

                    fut = pool.run_in(folder, validation.run, c.info.name, c.limits, dict(c.rules),
                                      c.settings.check_against, c.seed or 0)
                else:
                    fut = pool.build(folder, c.settings.build_time, c.settings.build_memory_mb,
                                     c.settings.build_processes)
            except RuntimeError:  # closed: the host is stopping
                return
            self._inflight[fut] = (c, item, folder, self._slots_generation())

    def _slots_generation(self) -> int:
        return self._slots.generation if self._slots is not None else -1

    def _finish(self, done) -> None:
        lost = []
        for fut in done:
            c, item, folder, generation = self._inflight.pop(fut)
            try:
                result = fut.result()
                error = None
            except cf.process.BrokenProcessPool:
                lost.append((c, item, folder, generation))
                continue
            except cf.CancelledError:
                lost.append((c, item, folder, generation))
                continue
            except Exception as e:  # noqa: BLE001 - a game or build that fails in its worker
                result, error = None, e
            if folder is None:
                self._stored(c, item, None if result is None else result[0], error)
            else:
                self._built(c, item, folder, result, error)
        if lost and not self._stopping.is_set():
            pool = self._slots
            if pool is not None and any(g == pool.generation for *_, g in lost):
                self._note(f"a worker died: {len(lost)} games or builds in flight are done again")
                pool.restart()
            for c, item, folder, _ in lost:
                self._retry(c, item, folder)

    def _retry(self, c: _Served, item, folder) -> None:
        key = ("game", item.id) if folder is None else item
        tries = self._tries
        tries[key] = tries.get(key, 0) + 1
        with self._lock:
            if folder is not None:
                c.running_builds = max(0, c.running_builds - 1)
            if folder is None:
                c.inflight.pop(item.id, None)
                c.queue.done(item)
                scheduled = c.plan is not None and item.id in c.plan
                if tries[key] <= RETRIES and scheduled:
                    c.queue.push_back(item, not c.fresh.isdisjoint(b.name for b in item.players))
                elif scheduled:
                    self._put_off(c, item, tries.pop(key))
            elif tries[key] <= RETRIES:
                c.builds.appendleft(item)
            elif item[0] == "submission":
                self._store.set_status(item[1], Status.BUILD_FAILED,
                                       build_output="the build ended its worker (host error)")
            elif item[0] == "check":
                self._store.set_status(item[1], Status.CHECK_FAILED)
            self._bump(c)

    def _put_off(self, c: _Served, task, tries: int) -> None:
        """``task`` failed ``tries`` times in a row: it waits (LATER seconds, doubling) and is then
        queued again by :meth:`_release`, unless it was put off LATER_ROUNDS times already: then it
        waits for the next schedule (with the lock held)."""
        waits = self._waits.get(task.id, 0)
        what = f"{c.name}: game {task.id} ({' vs '.join(b.name for b in task.players)}) failed {tries} times"
        if waits >= LATER_ROUNDS:
            self._note(f"{what}: left unplayed until the schedule next changes (a submission, a restart)")
            return
        delay = min(LATER * 2 ** waits, LATER_MAX)
        self._waits[task.id] = waits + 1
        c.later[task.id] = (time.monotonic() + delay, task)
        self._note(f"{what}: tried again in {delay:g} s")

    def _release(self) -> None:
        """Queue again the games put off whose wait is over, where they are still due: in the
        schedule (their bots not replaced meanwhile), neither counted nor in play."""
        now = time.monotonic()
        for c in self._served:
            if not c.later:
                continue
            with self._lock:
                due = [gid for gid, (at, _) in c.later.items() if at <= now]
                for gid in due:
                    task = c.later.pop(gid)[1]
                    if c.plan is not None and gid in c.plan and gid not in c.counted and gid not in c.inflight:
                        c.queue.push_back(task, not c.fresh.isdisjoint(b.name for b in task.players))
                if due:
                    self._bump(c)

    def _stored(self, c: _Served, task, rows, error) -> None:
        if error is not None or not rows:
            # Tried again like a game lost with its worker (a few times): never left out silently,
            # which would leave its bots "playing" with a game due that nothing plays.
            self._note(f"{c.name}: game {task.id} could not be played: {error!r}")
            self._retry(c, task, None)
            return
        assert c.journal is not None
        c.journal.add_rows(rows)
        if c.kept is not None:
            c.kept.played(task.players)
        row = rows[0]
        with self._lock:
            c.inflight.pop(task.id, None)
            c.queue.done(task)
            if c.plan is not None and task.id in c.plan and task.id not in c.counted:  # (never counted twice)
                c.unplayed.discard(task.id)
                s = c.counted[task.id] = GameSummary.of(row, c.plan.index(task.id))
                assert c.board is not None  # (made with the index, by _apply)
                c.board.add(s.bots, s.winner, places=s.seat_places, points=s.seat_points)
                c.recent.append(s)
            if c.stored_since is not None:
                c.stored_since.append(GameSummary.of(row))
                c.run_stored += 1
            self._bump(c)
        self._finish_run(c)

    def _built(self, c: _Served, item, folder: str, result, error) -> None:
        with self._lock:
            c.running_builds = max(0, c.running_builds - 1)
        if item[0] == "check":
            self._checked(c, item, folder, result, error)
            return
        ok, text, took = result if error is None else (False, f"the host could not run the build: {error}", 0.0)
        if item[0] == "folder":
            _, _, name, bot_hash = item
            with self._lock:
                c.building.discard((name, bot_hash))
                if ok and self.cluster is not None:
                    c.built.add((name, bot_hash))
                if not ok:
                    c.failed[(name, bot_hash)] = f"{folder}: {text}"
            self._scan(c)
            return
        from kothkit.bots.build import is_built
        from kothkit.bots.folders import BotError, load_folder

        row = self._store.get(item[1])
        if row is None or row.status == Status.DISABLED:
            return
        spec = None
        if ok:
            try:
                spec = load_folder(Path(folder))
            except (BotError, OSError) as e:
                ok, text = False, f"the brain cannot be loaded: {e}"
            else:
                # (A cluster's worker built it on its own machine: the games find it built there.)
                if spec.build and self.cluster is None and not is_built(spec):
                    ok, text = False, "the build left no brain to run"
        # What its folder may keep on disk (kothkit.serve.submissions: keep_mb, keep_file_mb).
        too_much = self._store.keep(row, c.settings, ok)
        if too_much is not None:
            ok, text = False, f"{text.rstrip()}\n{too_much}".lstrip()
        with self._lock:
            if not ok:
                self._store.set_status(row.id, Status.BUILD_FAILED, build_output=text, build_seconds=took)
                if c.active.get(row.bot) == row.id:  # a rebuild that failed: the brain is out
                    del c.active[row.bot]
                    c.bots.pop(row.bot, None)
                    c.queue.drop({row.bot})
                    self._bump(c)
                    fresh: set = set()
                else:
                    self._bump(c)
                    return
            elif item[0] == "submission" and c.settings.check:
                # The check before the ladder (kothkit.serve.validation): entered once it is done.
                self._store.set_status(row.id, Status.CHECKING, build_output=text, build_seconds=took)
                c.builds.appendleft(("check", row.id))
                self._bump(c)
                return
            else:
                entered = self._enter(c, row, spec, text, took)
                if entered is None:
                    return
                fresh = entered
            # Scheduled once the builds that finished together are in (a burst of submissions
            # before a deadline would otherwise schedule the whole round robin again for each).
            c.changed = (c.changed or set()) | fresh

    def _checked(self, c: _Served, item, folder: str, result, error) -> None:
        """A brain's check is done: entered (if it passed, or the challenge enters brains that fail)."""
        from kothkit.bots.folders import BotError, load_folder
        from kothkit.serve import validation

        row = self._store.get(item[1])
        if row is None:
            return
        if error is not None:
            result = (False, (), f"the host could not run the check: {error}", "")
        check = validation.CheckResult(ok=bool(result[0]), games=tuple(result[1]), fault=result[2], log=result[3])
        validation.save(self.state_dir, row.id, check)
        spec = None
        if check.ok or c.settings.check_failed_replaces:
            try:
                spec = load_folder(Path(folder))
            except (BotError, OSError) as e:
                check = attrs.evolve(check, ok=False, fault=f"the brain cannot be loaded: {e}")
                validation.save(self.state_dir, row.id, check)
        with self._lock:
            if spec is None:
                self._store.set_status(row.id, Status.CHECK_FAILED)
                self._bump(c)
                return
            fresh = self._enter(c, row, spec, None, 0.0)
            if fresh is not None:
                c.changed = (c.changed or set()) | fresh

    def _enter(self, c: _Served, row, spec, text, took) -> set | None:
        """Make the built brain of ``row`` its author's active one (the lock held): the bots whose
        games are to be scheduled, or None (a newer brain of the author's is in already)."""
        before = c.active.get(row.bot)
        if before is not None and before > row.id:
            # A newer brain of the same author built first: this one never plays.
            self._store.set_status(row.id, Status.REPLACED, build_output=text, build_seconds=took)
            self._bump(c)
            return None
        if before is not None and before != row.id:
            played, total = self._progress(c, row.bot)
            self._store.set_status(before, Status.REPLACED, played=played, total=total)
            c.queue.drop({row.bot})  # its old brain's games still queued: not played now
            for gid in [gid for gid, (_, t) in c.later.items() if row.bot in (b.name for b in t.players)]:
                del c.later[gid]
        self._store.set_status(row.id, Status.ACTIVE, build_output=text, build_seconds=took)
        c.active[row.bot] = row.id
        c.bots[row.bot] = spec
        c.latest[row.bot] = row.time
        c.logins[row.bot] = row.login
        return {row.bot}

    # -- reading ----------------------------------------------------------------------------
    def _progress(self, c: _Served, bot: str) -> tuple[int, int]:
        """(games of ``bot`` counted, games it has in the round robin); with the lock held.  A bot
        whose schedule is being made has none counted yet (the board still holds its previous
        brain's, under the same name)."""
        if self._pending(c, bot):
            return 0, c.total_per_bot()
        return (c.board.games(bot) if c.board is not None else 0), c.total_per_bot()

    @staticmethod
    def _current(c: _Served) -> bool:
        """Whether the applied schedule is of the bots as they are now (with the lock held)."""
        return c.board is not None and c.planned == {n: b.hash for n, b in c.bots.items()}

    @staticmethod
    def _pending(c: _Served, bot: str) -> bool:
        """Whether ``bot`` as it is now is not yet in the applied schedule (with the lock held)."""
        spec = c.bots.get(bot)
        return spec is not None and c.planned.get(bot) != spec.hash

    @staticmethod
    def _submitted(c: _Served) -> dict[str, str]:
        """The dates of the "submitted" tie-break, as ``kothkit run`` and a report take them (with the
        lock held, or in the dispatcher thread): a folder's bot's bot.toml ``submitted``, a
        submission's time."""
        if c.kind == Kind.FOLDER:
            return {n: date for n, b in c.bots.items() if (date := b.submitted)}
        from kothkit.results.archive import iso_time

        return {n: date for n, t in c.latest.items() if t is not None and (date := iso_time(t))}

    def _standings(self, c: _Served) -> list[ScoreboardRow]:
        """``c``'s Scoreboard, worked out once per version (with the lock held)."""
        if c.cache is not None and c.cache[0] == c.version:
            return c.cache[1]
        from kothkit.store.ratings import performance

        rows = c.board.standings(self._submitted(c)) if c.board else []
        standings = []
        due = c.total_per_bot()
        for s in rows:
            owner = c.logins.get(s.bot) if c.kind == Kind.SUBMISSIONS else None
            provisional = s.games < due or self._pending(c, s.bot)
            elo, error = performance(s.wins, s.draws, s.losses) if provisional else (None, None)
            standings.append(ScoreboardRow(rank=s.rank, bot=s.bot, owner=owner, points=s.points, wins=s.wins,
                                           draws=s.draws, losses=s.losses, games=s.games, latest=c.latest.get(s.bot),
                                           due=due, provisional=provisional, elo=elo, elo_error=error))
        c.cache = (c.version, standings)
        return standings

    def challenges(self) -> list[ChallengeInfo]:
        """Every challenge served, in the order given."""
        return [self.challenge(c.name) for c in self._served]

    def challenge(self, name: str) -> ChallengeInfo:
        """The challenge ``name``; KeyError if there is none."""
        c = self._get(name)
        s = c.settings
        with self._lock:
            return ChallengeInfo(name=c.name, default_title=s.title or c.folder.resolve().name, game=c.info.name,
                                 kind=s.kind, titles=dict(s.titles), zone=s.zone(),
                                 languages=s.languages if s.kind == Kind.SUBMISSIONS else (), max_bytes=s.max_bytes,
                                 min_interval=s.min_interval, per_day=s.per_day, queued=len(c.queue) + len(c.later),
                                 playing=len(c.inflight), bots=len(c.bots), folder=c.folder, errors=c.errors,
                                 build_seconds_per_day=s.build_seconds_per_day)

    def terms(self, name: str) -> tuple[Limits, ServeSettings, GameInfo]:
        """What the challenge's page says of it: its limits (the game's, with the challenge's
        ``[limits]``), its ``[serve]`` settings and its game; KeyError if there is none."""
        c = self._get(name)
        return c.limits, c.settings, c.info

    def journal_of(self, name: str) -> Path:
        """The journal of challenge ``name`` (read-only for others: kothkit.serve.publish reads it);
        KeyError if there is none."""
        return self._get(name).journal_path

    def cluster_executor(self) -> Any:
        """The cluster's executor when the host plays on one (``--cluster``: the Play page's games
        are played there too, kothkit.serve.playsite), else None."""
        return self._slots if self.cluster is not None else None

    def play_setup(self, name: str) -> tuple:
        """What the Play page needs of challenge ``name`` (kothkit.serve.playsite): (game info,
        limits, rules, serve settings, {bot: (author's login, spec)} of the active brains)."""
        c = self._get(name)
        with self._lock:
            brains = ({bot: (c.logins.get(bot), spec) for bot, spec in c.bots.items()}
                      if c.kind == Kind.SUBMISSIONS else {})
        return c.info, c.limits, dict(c.rules), c.settings, brains

    def standings(self, name: str) -> list[ScoreboardRow]:
        """The Scoreboard: every bot in the current round robin, best first."""
        c = self._get(name)
        with self._lock:
            return list(self._standings(c))

    def crosstable(self, name: str) -> Crosstable:
        """Each pair's games counted in the standings, by bot."""
        c = self._get(name)
        with self._lock:
            if c.table is None or c.table[0] != c.version:
                board = c.board
                counts = dict(board.cells) if board is not None else {}
                c.table = (c.version, Crosstable(bots=tuple(s.bot for s in self._standings(c)), counts=counts))
            return c.table[1]

    def games(self, name: str, bot: str | None = None) -> list[GameSummary]:
        """The games counted in the standings (only ``bot``'s, if given), latest first."""
        c = self._get(name)
        with self._lock:
            if bot is not None:
                return self._placed(c, [s for s in reversed(c.recent) if bot in s.bots])
            if c.stale:  # placed again once, all of them
                c.recent = self._placed(c, c.recent)
                c.counted.update((s.id, s) for s in c.recent)
                c.stale = False
            return c.recent[::-1]

    def game(self, name: str, game_id: str) -> GameSummary:
        """One game of the challenge's journal (counted or not); KeyError if unknown."""
        c = self._get(name)
        with self._lock:
            s = c.counted.get(game_id)
            if s is not None:
                return self._placed(c, [s])[0]
        row = self._read(c, game_id)
        if row is None:
            raise KeyError(f"no game {game_id!r} in {name}")
        return GameSummary.of(row)

    def owners(self, name: str, game_id: str) -> set[str]:
        """The logins whose brains played game ``game_id`` (empty for folder bots); KeyError if unknown."""
        c = self._get(name)
        s = self.game(name, game_id)
        if c.kind != Kind.SUBMISSIONS:
            return set()
        with self._lock:
            return {c.logins[b] for b in s.bots if b in c.logins}

    def _read(self, c: _Served, game_id: str):
        """One game's summary row of ``c``'s journal (Journal.summaries), read-only (the dispatcher
        may be writing it); None if it is not there."""
        from kothkit.store.journal import Journal

        if not isinstance(game_id, str) or not re.fullmatch(r"[0-9a-f]{1,64}", game_id):
            return None
        try:
            with Journal(c.journal_path, readonly=True) as reader:
                return next(reader.summaries([game_id]), None)
        except sqlite3.Error:
            return None

    def version(self, name: str) -> int:
        """A number that grows each time something on the challenge's scoreboard (standings,
        games, submissions' statuses, queue) changes."""
        c = self._get(name)
        with self._lock:
            return c.version

    def wait(self, name: str, since: int, timeout: float) -> int:
        """Block until :meth:`version` is above ``since``, or ``timeout`` s pass; the version then."""
        c = self._get(name)
        with self._changed:
            self._changed.wait_for(lambda: c.version > since, timeout=max(0.0, timeout))
            return c.version

    # -- submitting -------------------------------------------------------------------------
    def submit(self, name: str, login: str, filename: str, language: str, data: bytes) -> Submission:
        """Store ``data`` as ``login``'s new brain for challenge ``name`` and queue its build.

        Raises (nothing stored then) :class:`TooLarge`, :class:`BadFileName`,
        :class:`UnknownLanguage` (also for a folder challenge), :class:`RateLimited` (with
        ``retry_after`` seconds), all :class:`SubmitError`; KeyError for an unknown challenge."""
        c = self._get(name)
        phase = self.phase(name)
        if not phase.taking and c.kind == Kind.SUBMISSIONS:
            # (in the request's language and the challenge's time zone: the site calls this in its context)
            raise PhaseClosed(_("submissions are not taken now: %(phase)s", phase=i18n.phase_text(phase)))
        row = self._store.add(c.name, c.settings, login, filename, language, data)
        with self._lock:
            c.logins[row.bot] = row.login
            c.builds.append(("submission", row.id))
            self._bump(c)
        self._wake.set()
        return self._submission(c, row)

    def submissions(self, name: str, login: str | None = None) -> list[Submission]:
        """The challenge's submissions (only ``login``'s, if given), newest first."""
        c = self._get(name)
        rows = self._store.list(c.name, login)
        with self._lock:  # (the whole list of one moment; whether the schedule is current worked out once)
            current = self._current(c)
            return [self._submission(c, r, current) for r in rows]

    def _submission(self, c: _Served, row: Submission, current: bool | None = None) -> Submission:
        status, played, total = row.status, row.played, row.total
        if status == Status.ACTIVE:
            with self._lock:
                if c.active.get(row.bot) == row.id:
                    played, total = self._progress(c, row.bot)
                    # Until its games are scheduled (milliseconds) it is playing none of them yet: never
                    # "done" with its previous brain's counts (statuses only go forward: no "queued" again).
                    # Done only with the schedule current (every bot in it as it is now: else a bot
                    # just gone or come changes what is due) and each of its games counted.
                    done = played >= total and (self._current(c) if current is None else current)
                    status = Status.DONE if done and not self._pending(c, row.bot) else Status.PLAYING
                else:  # its rebuild is queued (the host restarted without its build output)
                    status, played, total = Status.BUILDING, 0, 0
        return attrs.evolve(row, status=status, played=played, total=total)

    # -- phases -----------------------------------------------------------------------------
    def _due(self, c: _Served) -> bool:
        """Whether ``c`` has work still to do: builds, games, a schedule (with the lock held)."""
        if c.journal is None or c.board is None:
            return True
        if c.builds or c.running_builds or len(c.queue) or c.inflight or c.planner is not None or c.changed:
            return True
        if any(self._pending(c, b) for b in c.bots):
            return True
        return bool(c.kind == Kind.SUBMISSIONS and self._store.with_status(c.name, Status.QUEUED, Status.BUILDING))

    def phase(self, name: str, now: dt.datetime | None = None) -> Phase:
        """The challenge's phase now (or at ``now``): see :class:`Phase`."""
        c = self._get(name)
        opens, closes = c.settings.opens, c.settings.closes
        now = now or dt.datetime.now(dt.UTC)
        if opens is not None and now < opens:
            return Phase(Period.BEFORE, opens, closes, f"submissions open at {_date(opens)}")
        if closes is not None and now >= closes:
            with self._lock:
                due = self._due(c)
            if due:
                return Phase(Period.CLOSED, opens, closes,
                             f"closed at {_date(closes)}: the last games are being played")
            return Phase(Period.FINAL, opens, closes, f"closed at {_date(closes)}: the standings are final")
        if closes is not None:
            return Phase(Period.OPEN, opens, closes, f"open until {_date(closes)}")
        return Phase(Period.OPEN, opens, closes, "open")

    # -- an admin's tools -------------------------------------------------------------------
    def rejudge(self, name: str, sub_id: int) -> str:
        """Judge submission ``sub_id`` again: an active brain's games are deleted from the journal
        and played again (the standings drop them meanwhile); a brain whose build failed is built
        again.  What was done, in words; KeyError if there is no such submission."""
        c = self._get(name)
        row = self._store.get(sub_id)
        if row is None or row.challenge != c.name:
            raise KeyError(f"no submission {sub_id} in {name}")
        if row.status == Status.BUILD_FAILED:
            self._store.set_status(row.id, Status.QUEUED)
            with self._lock:
                c.builds.append(("submission", row.id))
                self._bump(c)
            self._wake.set()
            return _("submission %(id)s: built again", id=row.id)
        if row.status != Status.ACTIVE:
            raise SubmitError(_("submission %(id)s is %(status)s: only an active brain or a failed build is rejudged",
                                id=row.id, status=row.status))

        def replay() -> None:
            with self._lock:
                if c.active.get(row.bot) != row.id or row.bot not in c.planned or c.plan is None:
                    return
                ids = [gid for gid, (pair, _k) in c.plan.where.items() if row.bot in pair and gid not in c.inflight]
                # Out of the schedule and in again: its games leave the board and are looked for afresh.
                spec = c.bots.pop(row.bot)
            assert c.journal is not None  # (opened by _open)
            c.journal.delete(ids)
            self._reschedule(c, set(), wait=True)
            with self._lock:
                if c.active.get(row.bot) == row.id:
                    c.bots[row.bot] = spec
            self._reschedule(c, {row.bot}, wait=True)

        self._commands.put(replay)
        self._wake.set()
        return _("submission %(id)s: its games are played again", id=row.id)

    def disable(self, name: str, sub_id: int) -> str:
        """Take the active brain ``sub_id`` out of the round robin (its games leave the standings);
        its author's next submission plays as usual.  KeyError if there is no such submission."""
        c = self._get(name)
        row = self._store.get(sub_id)
        if row is None or row.challenge != c.name:
            raise KeyError(f"no submission {sub_id} in {name}")
        if row.status not in (Status.ACTIVE, Status.QUEUED, Status.BUILDING):
            raise SubmitError(_("submission %(id)s is %(status)s: only an active or queued brain is disabled",
                                id=row.id, status=row.status))
        self._store.set_status(row.id, Status.DISABLED)

        def leave() -> None:
            with self._lock:
                if c.active.get(row.bot) != row.id:
                    return
                del c.active[row.bot]
                c.bots.pop(row.bot, None)
            self._reschedule(c, set(), wait=True)

        self._commands.put(leave)
        self._wake.set()
        return _("submission %(id)s: disabled", id=row.id)

    def source(self, name: str, sub_id: int) -> tuple[Submission, bytes]:
        """Submission ``sub_id`` of challenge ``name`` and its source's bytes as its author sent them
        (for admins); KeyError if there is no such submission, SubmitError if its source cannot be
        read (a regular file only: never through a symlink a build may have left in its place)."""
        from kothkit.bots.folders import BotError, open_regular

        c = self._get(name)
        row = self._store.get(sub_id)
        if row is None or row.challenge != c.name:
            raise KeyError(f"no submission {sub_id} in {name}")
        lang = c.settings.language(row.language)
        if lang is None:
            raise SubmitError(_("submission %(id)s: its language %(language)s is no longer offered, so its "
                                "file is not known", id=row.id, language=row.language))
        cap = max(row.size, c.settings.max_bytes)
        try:
            fd = open_regular(self._store.folder(row) / lang.file)
            chunks: list[bytes] = []
            try:
                while sum(map(len, chunks)) <= cap and (chunk := os.read(fd, 1 << 20)):
                    chunks.append(chunk)
            finally:
                os.close(fd)
            data = b"".join(chunks)
        except (BotError, OSError) as e:
            raise SubmitError(_("submission %(id)s: its source cannot be read (%(why)s)", id=row.id,
                                why=getattr(e, "strerror", None) or e)) from None
        return row, data[:cap]

    def enable(self, name: str, sub_id: int) -> str:
        """Bring the disabled brain ``sub_id`` back: built and checked again as a new submission is,
        then its author's brain, unless its author has a newer submission meanwhile (refused, as
        that one would replace it).  KeyError if there is no such submission."""
        c = self._get(name)
        row = self._store.get(sub_id)
        if row is None or row.challenge != c.name:
            raise KeyError(f"no submission {sub_id} in {name}")
        if row.status != Status.DISABLED:
            raise SubmitError(_("submission %(id)s is %(status)s: only a disabled brain is enabled",
                                id=row.id, status=row.status))
        newer = [r.id for r in self._store.list(c.name, row.login) if r.id > row.id
                 and r.status in (Status.QUEUED, Status.BUILDING, Status.CHECKING, Status.ACTIVE)]
        if newer:
            raise SubmitError(_("submission %(id)s: its author's submission %(newer)s is newer (disable that one "
                                "first)", id=row.id, newer=newer[-1]))
        self._store.set_status(row.id, Status.QUEUED)
        with self._lock:
            if ("submission", row.id) not in c.builds:  # (disabled while queued: its build is still to come)
                c.builds.append(("submission", row.id))
            self._bump(c)
        self._wake.set()
        return _("submission %(id)s: enabled (built again, then it plays)", id=row.id)

    def work(self) -> dict:
        """The work queue and the slots, for the admin page: the slots' number and use, and per
        challenge the games queued and in play (their bots) and the builds waiting and running."""
        rows: list[dict] = []
        pool = self._slots
        # With a cluster: its workers (those checked) and what each plays or builds.
        out = {"jobs": pool.capacity() if pool is not None else self.jobs, "busy": len(self._inflight),
               "problem": self.problem, "challenges": rows, "cluster": self.cluster, "workers": self.workers(),
               "refused": pool.refused() if pool is not None else {}, "cpu": dict(self.cpu)}
        for c in self._served:
            with self._lock:
                rows.append({
                    "name": c.name, "queued": len(c.queue), "builds_waiting": len(c.builds),
                    "builds_running": c.running_builds,
                    "playing": sorted((t.id, tuple(b.name for b in t.players)) for t in c.inflight.values()),
                    # Games that failed again and again: their ids, bots and seconds until they are tried again.
                    "later": sorted((t.id, tuple(b.name for b in t.players), max(0.0, at - time.monotonic()))
                                    for at, t in c.later.values()),
                })
        return out

    def brains(self, name: str) -> dict[str, tuple[str, int, float]]:
        """Each active brain of a submissions challenge: bot -> (its hash, its submission's id, its time)."""
        c = self._get(name)
        with self._lock:
            return {bot: (c.bots[bot].hash, sid, c.latest.get(bot) or 0.0) for bot, sid in c.active.items()
                    if bot in c.bots}

    def stored_game(self, name: str, game_id: str):
        """(archive, record, game info) of one stored game, read-only: for the pages that re-play a
        game for a visitor themselves (:mod:`kothkit.serve.privacy`); KeyError if unknown."""
        from kothkit.results.archive import read_game

        c = self._get(name)
        self.game(name, game_id)  # KeyError if unknown
        archive = read_game(c.journal_path, game_id)
        if archive is None:
            raise KeyError(f"no game {game_id!r} in {name}")
        return archive, archive.records[0], c.info
