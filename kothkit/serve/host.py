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
bot's games, the challenges taking turns (:mod:`kothkit.playing.dispatcher`, as ``kothkit run``'s
games are dispatched; the host only chooses what to submit).  The schedule
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

A :class:`Host` is made of parts, a module each, so that each reads in one sitting: this one
serves (the constructor, start, stop and the dispatcher thread's loop); :mod:`kothkit.serve.reading`
what the pages read; :mod:`kothkit.serve.scheduling` a challenge's schedule and its application;
:mod:`kothkit.serve.building` builds, checks and an admin's tools; :mod:`kothkit.serve.served` what
they share.

A script that makes a Host must do so under ``if __name__ == "__main__":`` (as
``kothkit serve``'s command does): the workers are started with ``spawn``, which
imports the script's module again in each of them.
"""

from __future__ import annotations

import itertools
import os
import queue
import threading
import time
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from kothkit.playing.dispatcher import HOST, Dispatcher
from kothkit.serve import settings as serve_settings
from kothkit.serve.building import Building
from kothkit.serve.errors import BadFileName, RateLimited, SubmitError, TooLarge, UnknownLanguage
from kothkit.serve.served import Period, Phase, PhaseClosed, Served, safe_name
from kothkit.serve.settings import Kind, SettingsError
from kothkit.serve.submissions import Store
from kothkit.serve.views import (
    Cell,
    ChallengeInfo,
    Crosstable,
    GameSummary,
    Language,
    ScoreboardRow,
    Submission,
)

if TYPE_CHECKING:
    from kothkit.playing.executor import Executor

__all__ = ["Host", "SubmitError", "TooLarge", "BadFileName", "UnknownLanguage", "RateLimited", "SettingsError",
           "ChallengeInfo", "Crosstable", "Cell", "GameSummary", "Language", "ScoreboardRow", "Submission",
           "Phase", "Period", "PhaseClosed"]

#: Seconds between two scans of a folder challenge's bots.
SCAN_EVERY = 2.0
#: What is done with a game or build lost with its worker (or a game that failed in it)
#: (kothkit.playing.dispatcher.HOST): tried again at once ``retries`` times, then a build is
#: given up until the host's next start, and a game waits ``later`` seconds (a worker or a judge
#: failing for a while, not a game that fails every time), doubling each time it fails again up
#: to ``later_max``; after ``later_rounds`` waits it is left unplayed until the schedule is next
#: made (a submission, the host's next start), which tries it again as many times.
POLICY = HOST
#: Seconds start() waits for the challenges' state (journals read, folders scanned).
START_TIME = 120.0


class Host(Building):
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
        self._served: list[Served] = []
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
        #: What plays and builds there: one lane per challenge, named as the challenge.  Its work is a
        #: build: ("submission", id) | ("rebuild", id) | ("check", id) | ("folder", path, name, hash).
        self._work = Dispatcher(None, POLICY, rows=True, on_notice=self._note, on_change=self._lane_changed,
                                due=self._still_due)
        for c in self._served:
            self._work.lane(c.name, pondering=bool(c.info.pondering))
        #: (challenge, plan) from the planning threads, applied by the dispatcher.
        self._planned: queue.Queue = queue.Queue()
        #: The last unexpected error of the dispatcher (it carries on), for the host's log.
        self.problem: str | None = None
        #: Work for the dispatcher from the web's threads (an admin's rejudge, a brain disabled).
        self._commands: queue.Queue = queue.Queue()

    def _load(self, folder: Path, taken: set[str]) -> Served:
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
        from kothkit.playing.openings import OpeningsError, of_challenge

        try:  # its openings as kothkit run plays them
            book = of_challenge(info, ch, game.rules)
        except OpeningsError as e:
            raise SettingsError(str(e)) from None
        from kothkit.serve import validation

        problem = validation.settings_problem(info, settings)
        if problem is not None:
            raise SettingsError(f"{ch.path}: [serve] {problem}")
        base = name = safe_name(ch.folder.resolve().name)
        for k in itertools.count(2):
            if name not in taken:
                break
            name = f"{base}-{k}"
        if settings.kind == Kind.SUBMISSIONS:
            journal = ch.journal or self.state_dir / "journals" / f"{name}.sqlite"
        else:  # where kothkit run keeps the challenge's games
            journal = journal_path(info.name, ch)
        return Served(name=name, folder=ch.folder, settings=settings, info=info, scoring=game.scoring,
                      limits=game.limits,
                       rules=dict(game.rules), rounds=ch.rounds or info.rounds, seed=ch.seed,
                       journal_path=Path(journal), entries=[str(b) for b in ch.bots], openings=book,
                       # Versions go on growing across restarts: a page open before one waits for a
                       # version above the one it saw, and gets it.
                       version=time.time_ns() // 1_000_000)

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
        from kothkit.playing.settings import Cores, cores_of

        # A game that allows pondering (the course's Gomoku) gets a core per bot where the machine
        # has two per slot, as in kothkit run (one rule: cores_of); the slots are laid out for the widest.
        layouts = {c.name: cores_of(c.info, self.jobs, c.limits.pin_cpu) for c in self._served}
        widest = Cores(self.jobs, per_job=max((x.per_job for x in layouts.values()), default=1),
                       pin=any(x.pin for x in layouts.values()))
        if self.cluster is None:
            for c in self._served:  # said at start, and on the admin page
                self.cpu[c.name] = layouts[c.name].note
                self._log(f"cpu: {c.name}: {self.cpu[c.name]}")
            from kothkit.procs.contain import cpu_quota_base
            from kothkit.procs.cores import PLAY_SHARE

            quota = (f"under a CPU quota of {PLAY_SHARE:g} core" if cpu_quota_base() is not None else
                     "with no CPU quota (no writable cpu cgroup here)")
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
            self._slots = executor.executor_for(widest, start="spawn", interrupts=False, on_notice=self._log)
        self._work.executor = self._slots
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
        self._slots = self._work.executor = None
        self._work.forget()
        while not self._planned.empty():
            self._planned.get_nowait()
        with self._lock:
            for c in self._served:
                c.building.clear()
                c.planner = c.again = c.stored_since = None
                self._bump(c)

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
                    done = self._work.poll(0.2)
                    if done or self._work.running:
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

    def _tools(self) -> list[str]:
        """The programs the served languages build and run with (``gcc``, ``python3``...), which
        every worker must have: a build that failed for want of one would be its author's loss."""
        return sorted({argv[0] for c in self._served if c.kind == Kind.SUBMISSIONS
                       for lang in c.settings.languages for argv in (lang.build, lang.command)
                       if argv and "/" not in argv[0]})
