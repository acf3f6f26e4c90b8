"""Builds and checks (:class:`Building`, a part of :class:`kothkit.serve.host.Host`).

A submission is stored and its build queued (:meth:`Building.submit`); the dispatcher starts
builds before games (:meth:`Building._start_build`); a built brain is checked if the challenge
asks it (:mod:`kothkit.serve.validation`), then entered as its author's active brain, replacing
the one before (:meth:`Building._enter`).  An admin may rejudge, disable or enable a submission,
or read its source.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import attrs

from kothkit.playing.dispatcher import Lost
from kothkit.serve import i18n
from kothkit.serve.errors import SubmitError
from kothkit.serve.i18n import _
from kothkit.serve.scheduling import Scheduling
from kothkit.serve.served import PhaseClosed, Served
from kothkit.serve.settings import Kind
from kothkit.serve.views import Status, Submission

if TYPE_CHECKING:
    from kothkit.playing.executor import Executor




class Building(Scheduling):
    """Builds and checks of brains, their entry into the round robin, and an admin's tools."""


    def _build(self, c: Served, item: tuple, front: bool = False) -> None:
        """Queue a build (or a check) of ``c``'s: the dispatcher starts it before any game."""
        self._work.submit_work(c.name, item, lambda pool: self._start_build(c, item, pool), front=front)


    def _folder_of(self, item: tuple) -> str:
        if item[0] == "folder":
            return str(item[1])
        row = self._store.get(item[1])
        return str(self._store.folder(row)) if row is not None else ""


    def _start_build(self, c: Served, item: tuple, pool: Executor):
        """Start ``item`` on ``pool`` (called by the dispatcher); None if there is nothing to do
        (an admin disabled the submission meanwhile)."""
        if item[0] in ("submission", "rebuild", "check"):
            row = self._store.get(item[1])
            if row is None or row.status == Status.DISABLED:
                return None
            if item[0] == "submission":
                self._store.set_status(row.id, Status.BUILDING)
                with self._lock:
                    self._bump(c)
        folder = self._folder_of(item)
        if item[0] == "check":
            from kothkit.serve import validation

            return pool.run_in(folder, validation.run, c.info.name, c.limits, dict(c.rules),
                               c.settings.check_against, c.seed or 0)
        return pool.build(folder, c.settings.build_time, c.settings.build_memory_mb, c.settings.build_processes)


    def _finish(self, done) -> None:
        for d in done:
            c = self._by_name[d.key]
            if d.tasks:
                self._stored(c, d.tasks[0], d.results)
            elif isinstance(d.error, Lost):
                self._gave_up(c, d.work)
            else:
                self._built(c, d.work, self._folder_of(d.work), d.value, d.error)


    def _gave_up(self, c: Served, item: tuple) -> None:
        """A build or check that ended its worker again and again: failed (the host's error)."""
        with self._lock:
            if item[0] == "submission":
                self._store.set_status(item[1], Status.BUILD_FAILED,
                                       build_output="the build ended its worker (host error)")
            elif item[0] == "check":
                self._store.set_status(item[1], Status.CHECK_FAILED)
            self._bump(c)


    def _built(self, c: Served, item, folder: str, result, error) -> None:
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
                    self._work.drop({row.bot}, c.name)
                    self._bump(c)
                    fresh: set = set()
                else:
                    self._bump(c)
                    return
            elif item[0] == "submission" and c.settings.check:
                # The check before the ladder (kothkit.serve.validation): entered once it is done.
                self._store.set_status(row.id, Status.CHECKING, build_output=text, build_seconds=took)
                self._build(c, ("check", row.id), front=True)
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


    def _checked(self, c: Served, item, folder: str, result, error) -> None:
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


    def _enter(self, c: Served, row, spec, text, took) -> set | None:
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
            self._work.drop({row.bot}, c.name)  # its old brain's games queued or put off: not played now
        self._store.set_status(row.id, Status.ACTIVE, build_output=text, build_seconds=took)
        c.active[row.bot] = row.id
        c.bots[row.bot] = spec
        c.latest[row.bot] = row.time
        c.logins[row.bot] = row.login
        return {row.bot}


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
            self._build(c, ("submission", row.id))
            self._bump(c)
        self._wake.set()
        return self._submission(c, row)


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
                self._build(c, ("submission", row.id))
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
                playing = self._playing(c)
                ids = [gid for gid, (pair, _k) in c.plan.where.items() if row.bot in pair and gid not in playing]
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
            # (disabled while queued: its build is still to come)
            if ("submission", row.id) not in self._work.work(c.name):
                self._build(c, ("submission", row.id))
            self._bump(c)
        self._wake.set()
        return _("submission %(id)s: enabled (built again, then it plays)", id=row.id)


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
