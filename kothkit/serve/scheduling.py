"""A challenge's schedule and its application (:class:`Scheduling`, a part of :class:`kothkit.serve.host.Host`).

In the dispatcher thread: a challenge's state is read (its journal, its submissions or its bot
folders, :meth:`Scheduling._open`, rescanned by :meth:`Scheduling._scan`); a change of its bots
schedules only the changed bots' pairs (:class:`kothkit.playing.schedule.Planned`), here for a few
bots, in a thread of its own for many (:meth:`Scheduling._reschedule`); the plan is applied
(:meth:`Scheduling._apply`): the games found in the journal counted, the others submitted to the
dispatcher (:mod:`kothkit.playing.dispatcher`), a new bot's first; and each game played is stored
and counted once (:meth:`Scheduling._stored`).
"""

from __future__ import annotations

import bisect
import itertools
import json
import queue
import threading
import traceback
from typing import TYPE_CHECKING

import attrs

from kothkit.scoring import Tally
from kothkit.serve.reading import Reading
from kothkit.serve.served import Plan, Served, folder_time, recent_key
from kothkit.serve.settings import Kind
from kothkit.serve.views import GameSummary, Status

if TYPE_CHECKING:
    from kothkit.store.journal import Journal


#: Bots added, changed or gone at most for a new schedule to be made in the dispatcher's thread
#: (each costs its pairs' games: some milliseconds at the course's 200 brains); more go to a thread.
SMALL_CHANGE = 4



class Scheduling(Reading):
    """A challenge's state read and its schedule made and applied, in the dispatcher thread."""


    def _open(self, c: Served) -> None:
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
            self._work.drop_work(c.name)
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
                    self._build(c, ("rebuild", row.id))  # its build output is gone: built again first
                    continue
                bots[row.bot], latest[row.bot] = spec, row.time
                c.active[row.bot] = row.id
            for row in self._store.with_status(c.name, Status.QUEUED):
                self._build(c, ("submission", row.id))
            c.bots, c.latest = bots, latest
        self._reschedule(c, set(), wait=True)


    def _loaders(self):
        from kothkit.plugins import plugin_manager

        loaders = []
        for group in plugin_manager().hook.kothkit_bot_loaders():
            loaders.extend(group)
        return loaders


    def _scan(self, c: Served, force: bool = False) -> None:
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
                busy = {b.name for t in self._playing(c).values() for b in t.players}
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
                        self._build(c, ("folder", str(b.path), b.name, b.hash))
            else:
                ready[b.name] = b
        with self._lock:
            changed = {n: b.hash for n, b in ready.items()} != {n: b.hash for n, b in c.bots.items()}
            fresh = {n for n, b in ready.items() if n not in c.bots or c.bots[n].hash != b.hash}
            if changed:
                self._work.drop({n for n, b in c.bots.items() if n not in ready or ready[n].hash != b.hash}, c.name)
                c.bots = ready
                c.latest = {n: folder_time(b.path if b.path.is_dir() else b.path.parent) for n, b in ready.items()}
            if tuple(errors) != c.errors:
                c.errors = tuple(errors)
                self._bump(c)
        if changed or force:
            self._reschedule(c, fresh, wait=force)


    def _reschedule(self, c: Served, fresh: set[str], wait: bool = False) -> None:
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
            inflight = set(self._playing(c))
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


    def _plan(self, c: Served, bots: tuple, fresh: set[str], inflight: set[str], journal: Journal,
              stop=None) -> Plan | None:
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
                                                limits=c.limits, rules=c.played_rules, code=c.code,
                                                seats=c.info.seats))
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
            elif any(b.name in fresh for b in t.players):
                first.append(t)
            else:
                rest.append(t)
        # A new brain's games in a seeded random order over its opponents, the new brains taking turns.
        first = plan.backlog(first, fresh)
        return Plan(fresh=fresh, full=full, plan=plan, changes=changes, found=found, first=first, rest=rest,
                     skipped=skipped)


    def _apply(self, c: Served, plan: Plan | None) -> None:
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
            settings = settings_of(c.limits, c.played_rules, c.code)
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
                counted, board, unplayed = {}, Tally(c.scoring, names), set()
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
                    bisect.insort(recent, s, key=recent_key)
            else:
                recent = sorted(recent + new, key=recent_key)
            c.recent = recent
            # Games in play or put off are the dispatcher's (a game put off waits its turn there).
            taken = self._work.taken(c.name)
            first = [t for t in plan.first if t.id not in counted and t.id not in taken]
            rest = [t for t in plan.rest if t.id not in counted and t.id not in taken]
            for t in plan.skipped:  # in play when planned, and lost since (its worker died)
                if t.id not in counted and t.id not in taken:
                    (first if not plan.fresh.isdisjoint(b.name for b in t.players) else rest).insert(0, t)
            self._work.replace(c.name, first, rest, (b.name for b in bots if b.stateful))
            c.fresh = {b for b in plan.fresh if any(b in (p.name for p in t.players) for t in first)}
            self._bump(c)
        self._finish_run(c)


    def _finish_run(self, c: Served) -> None:
        plan = c.plan
        if (c.run_id is not None and not self._work.queued(c.name)
                and not any(plan is not None and g in plan for g in self._playing(c))):
            assert c.journal is not None
            c.journal.finish_run(c.run_id, c.run_stored, len(c.counted) - c.run_stored)


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


    def _stored(self, c: Served, task, rows) -> None:
        """A game played: stored, and counted if it is in the schedule (never twice)."""
        assert c.journal is not None
        c.journal.add_rows(rows)
        if c.kept is not None:
            c.kept.played(task.players)
        row = rows[0]
        with self._lock:
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


    def _lane_changed(self, name) -> None:
        """A game of challenge ``name`` started, or was queued again (its queue is on the page)."""
        with self._lock:
            self._bump(self._by_name[name])


    def _still_due(self, name, task) -> bool:
        """Whether a game put off is still due once its wait is over: in the schedule (its bots not
        replaced meanwhile), not counted."""
        c = self._by_name[name]
        with self._lock:
            return c.plan is not None and task.id in c.plan and task.id not in c.counted
