"""What the host's pages read: a challenge, its Scoreboard, crosstable, games, submissions and phase,
and the admin's view of the work (:class:`Reading`, a part of :class:`kothkit.serve.host.Host`).

Everything here is read under the host's lock from what the dispatcher thread keeps in memory
(:mod:`kothkit.serve.scheduling`); nothing waits for a game but :meth:`Reading.wait`.
"""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from kothkit.serve.served import Parts, Period, Phase, Served, date_text
from kothkit.serve.settings import Kind, ServeSettings
from kothkit.serve.views import ChallengeInfo, Crosstable, GameSummary, ScoreboardRow, Status, Submission

if TYPE_CHECKING:
    from kothkit.game import GameInfo
    from kothkit.limits import Limits
    from kothkit.scoring import Scoring




@attrs.frozen
class _Seated:
    """A counted game as kothkit.store.ratings reads one: players, winner, every seat's place and points."""

    id: str
    players: tuple[str, ...]
    winner: str | None
    seat_places: tuple[int, ...] | None
    seat_points: tuple[float, ...] | None

    @classmethod
    def of(cls, g: GameSummary) -> _Seated:
        return cls(g.id, g.bots, g.winner, g.seat_places, g.seat_points)


class Reading(Parts):
    """What the web's threads read of the host: challenges, standings, games, submissions, phases and
    its work (under the host's lock; never waiting for a game, but :meth:`wait`)."""


    def _progress(self, c: Served, bot: str) -> tuple[int, int]:
        """(games of ``bot`` counted, games it has in the round robin); with the lock held.  A bot
        whose schedule is being made has none counted yet (the board still holds its previous
        brain's, under the same name)."""
        if self._pending(c, bot):
            return 0, c.total_per_bot()
        return (c.board.games(bot) if c.board is not None else 0), c.total_per_bot()


    @staticmethod
    def _current(c: Served) -> bool:
        """Whether the applied schedule is of the bots as they are now (with the lock held)."""
        return c.board is not None and c.planned == {n: b.hash for n, b in c.bots.items()}


    @staticmethod
    def _pending(c: Served, bot: str) -> bool:
        """Whether ``bot`` as it is now is not yet in the applied schedule (with the lock held)."""
        spec = c.bots.get(bot)
        return spec is not None and c.planned.get(bot) != spec.hash


    @staticmethod
    def _submitted(c: Served) -> dict[str, str]:
        """The dates of the "submitted" tie-break, as ``kothkit run`` and a report take them (with the
        lock held, or in the dispatcher thread): a folder's bot's bot.toml ``submitted``, a
        submission's time."""
        if c.kind == Kind.FOLDER:
            return {n: date for n, b in c.bots.items() if (date := b.submitted)}
        from kothkit.results.archive import iso_time

        return {n: date for n, t in c.latest.items() if t is not None and (date := iso_time(t))}


    def _standings(self, c: Served) -> list[ScoreboardRow]:
        """``c``'s Scoreboard, worked out once per version (with the lock held)."""
        if c.cache is not None and c.cache[0] == c.version:
            return c.cache[1]
        from kothkit.store.ratings import performance

        rows = c.board.standings(self._submitted(c)) if c.board else []
        standings = []
        due = c.total_per_bot()
        skills = c.skills[1] if c.skills is not None else {}
        for s in rows:
            owner = c.logins.get(s.bot) if c.kind == Kind.SUBMISSIONS else None
            provisional = s.games < due or self._pending(c, s.bot)
            # Elo (a two-seat game's); a table's uncertainty is its openskill sigma instead.
            elo, error = (performance(s.wins, s.draws, s.losses) if provisional and c.info.two_seats
                          else (None, None))
            skill = skills.get(s.bot)
            standings.append(ScoreboardRow(rank=s.rank, bot=s.bot, owner=owner, points=s.points, wins=s.wins,
                                           draws=s.draws, losses=s.losses, games=s.games, latest=c.latest.get(s.bot),
                                           due=due, provisional=provisional, elo=elo, elo_error=error,
                                           mean=s.mean, error=s.error, skill=skill.mu if skill else None,
                                           skill_error=skill.sigma if skill else None))
        if c.info.two_seats or (c.skills is not None and c.skills[0] == c.version):
            c.cache = (c.version, standings)  # (ratings of an earlier version: worked out again when asked)
        return standings


    def _rate(self, c: Served) -> None:
        """Rate ``c``'s bots by openskill from its counted games in schedule order (a game of more
        than two seats), once a version, without the host's lock held: only the games counted since
        the last version, on top of the ratings kept (:class:`kothkit.store.ratings.TableRater`; all
        again from an earlier place when a game came before one rated or a bot's games went)."""
        if c.info.two_seats:
            return
        from kothkit.store.ratings import TableRater

        with self._lock:
            if c.skills is not None and c.skills[0] == c.version:
                return
            version, games = c.version, [((g.index, g.id), _Seated.of(g)) for g in c.counted.values()]
        with c.rating:
            if c.skills is not None and c.skills[0] >= version:
                return  # (another thread rated this version, or a later one, meanwhile)
            if c.rater is None:
                c.rater = TableRater()
            skills = {r.bot: r for r in c.rater.update(games)}
            with self._lock:
                if c.skills is None or c.skills[0] < version:
                    c.skills = (version, skills)


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
                                 min_interval=s.min_interval, per_day=s.per_day,
                                 queued=self._work.queued(c.name) + len(self._work.later(c.name)),
                                 playing=len(self._playing(c)), bots=len(c.bots), folder=c.folder, errors=c.errors,
                                 build_seconds_per_day=s.build_seconds_per_day)


    def terms(self, name: str) -> tuple[Limits, ServeSettings, GameInfo]:
        """What the challenge's page says of it: its limits (the game's, with the challenge's
        ``[limits]``), its ``[serve]`` settings and its game; KeyError if there is none."""
        c = self._get(name)
        return c.limits, c.settings, c.info


    def scoring(self, name: str) -> Scoring:
        """How challenge ``name``'s results count (:attr:`Served.scoring`); KeyError if there is none."""
        return self._get(name).scoring

    def seated(self, name: str) -> bool:
        """Whether challenge ``name``'s game seats anything but exactly two (its games are tables: every
        seat's place and points, a rating by openskill); KeyError if there is none."""
        return not self._get(name).info.two_seats


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
        self._rate(c)
        with self._lock:
            return list(self._standings(c))


    def crosstable(self, name: str) -> Crosstable:
        """Each pair's games counted in the standings, by bot."""
        c = self._get(name)
        self._rate(c)
        with self._lock:
            if c.table is None or c.table[0] != c.version:
                board = c.board
                bots = tuple(s.bot for s in self._standings(c))
                if c.info.two_seats:
                    counts = dict(board.cells) if board is not None else {}
                else:  # how often the row bot placed above, level with and below the column bot
                    from kothkit.store.ratings import placed_above

                    above = placed_above(_Seated.of(g) for g in c.counted.values())
                    counts = {(a, b): (n, games - n - above.get((b, a), (0, 0))[0], above.get((b, a), (0, 0))[0])
                              for (a, b), (n, games) in above.items()}
                c.table = (c.version, Crosstable(bots=bots, counts=counts, placings=not c.info.two_seats))
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


    def _read(self, c: Served, game_id: str):
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


    def _placed(self, c: Served, games: list[GameSummary]) -> list[GameSummary]:
        """``games`` with their places in the schedule as it is now: a counted game keeps the index
        it had when it was counted, and a new bot's name moves the others (with the lock held)."""
        out = []
        for s in games:
            if c.plan is not None and s.id in c.plan and s.index != (i := c.plan.index(s.id)):
                s = attrs.evolve(s, index=i)
            out.append(s)
        return out


    def submissions(self, name: str, login: str | None = None) -> list[Submission]:
        """The challenge's submissions (only ``login``'s, if given), newest first."""
        c = self._get(name)
        rows = self._store.list(c.name, login)
        with self._lock:  # (the whole list of one moment; whether the schedule is current worked out once)
            current = self._current(c)
            return [self._submission(c, r, current) for r in rows]


    def _submission(self, c: Served, row: Submission, current: bool | None = None) -> Submission:
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


    def _due(self, c: Served) -> bool:
        """Whether ``c`` has work still to do: builds, games, a schedule (with the lock held)."""
        if c.journal is None or c.board is None:
            return True
        work = self._work
        if (work.work(c.name) or work.running_work(c.name) or work.queued(c.name) or self._playing(c)
                or c.planner is not None or c.changed):
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
            return Phase(Period.BEFORE, opens, closes, f"submissions open at {date_text(opens)}")
        if closes is not None and now >= closes:
            with self._lock:
                due = self._due(c)
            if due:
                return Phase(Period.CLOSED, opens, closes,
                             f"closed at {date_text(closes)}: the last games are being played")
            return Phase(Period.FINAL, opens, closes, f"closed at {date_text(closes)}: the standings are final")
        if closes is not None:
            return Phase(Period.OPEN, opens, closes, f"open until {date_text(closes)}")
        return Phase(Period.OPEN, opens, closes, "open")


    def work(self) -> dict:
        """The work queue and the slots, for the admin page: the slots' number and use, and per
        challenge the games queued and in play (their bots) and the builds waiting and running."""
        rows: list[dict] = []
        pool = self._slots
        # With a cluster: its workers (those checked) and what each plays or builds.
        out = {"jobs": pool.capacity() if pool is not None else self.jobs, "busy": self._work.running,
               "problem": self.problem, "challenges": rows, "cluster": self.cluster, "workers": self.workers(),
               "refused": pool.refused() if pool is not None else {}, "cpu": dict(self.cpu)}
        for c in self._served:
            with self._lock:
                rows.append({
                    "name": c.name, "queued": self._work.queued(c.name), "builds_waiting": len(self._work.work(c.name)),
                    "builds_running": self._work.running_work(c.name),
                    "playing": sorted((t.id, tuple(b.name for b in t.players)) for t in self._playing(c).values()),
                    # Games that failed again and again: their ids, bots and seconds until they are tried again.
                    "later": sorted((t.id, tuple(b.name for b in t.players), left)
                                    for left, t in self._work.later(c.name).values()),
                })
        return out


    def workers(self) -> dict[str, list[str]]:
        """The cluster's workers and what each plays or builds now (empty with this machine's slots)."""
        pool = self._slots
        return pool.workers() if pool is not None else {}


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
