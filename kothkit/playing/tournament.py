"""Tournaments: the schedule played through the referee, results committed to the journal.

Games run on an executor (:mod:`kothkit.playing.executor`): ``jobs`` local worker processes
(``jobs == 1`` plays them in this process) or the workers of a Dask cluster.  A local worker
owns one CPU slot and runs there with its games' bots, so concurrent games never compete for a
core, and a bot's reply wakes the referee on the bot's own core (a wake-up on another core costs
several times more on a VM).  The cores are claimed (:mod:`kothkit.procs.cores`), so that judges
on one machine spread over its cores instead of sharing the first ones.  Finished games are
committed as they arrive (games of function bots, which take microseconds, as batches of journal
rows made by the workers); games already in the journal with the same id are reused, not
replayed, which is what makes resume and incremental re-runs work.  Standings are tallied from
the games as they are stored or found.
Stateful bots never play two games at once and see their games in schedule
order, so results do not depend on ``jobs``.
"""

from __future__ import annotations

import itertools
import json
import signal
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from kothkit.bots.build import build
from kothkit.bots.folders import BotError, BotKind, BotSpec, journal_entry
from kothkit.game import GameInfo
from kothkit.limits import Limits
from kothkit.playing.dispatcher import Dispatcher, run_policy
from kothkit.playing.executor import CALM, STOP, Executor, executor_for, on_interrupt
from kothkit.playing.keeping import Keeper
from kothkit.playing.openings import KEY as OPENINGS_KEY
from kothkit.playing.openings import Openings, as_setting
from kothkit.playing.schedule import Schedule, settings_of
from kothkit.playing.settings import Cores, cores_of
from kothkit.plugins import game_code
from kothkit.scoring import Scoring, Standing, Tally
from kothkit.store.journal import GameRow, Journal, Outline, result_of
from kothkit.store.ratings import PairTally, Ratings, SkillRating, placed_above, rate_tables
from kothkit.store.records import GameRecord, GameResult, GameTask

#: Most games per unit of work when every bot is a function bot (games take microseconds).
FAST_BATCH = 1000
#: Most games per unit of work with program bots.  Their batches start at one game (a game may
#: take minutes) and grow towards the executor's batch_seconds like any other: a game of instant
#: bots is short, and sending each alone costs the judge a future, a wake-up and a row stored
#: alone, on a core its workers need.
PROGRAM_BATCH = 64
#: Seconds the workers get, after Ctrl-C, to hand back the games they finished before they are killed.
WIND_DOWN = 0.5


def read_ahead(capacity: int, batch: int) -> int:
    """How many games :func:`dispatch` reads of a schedule before they start (a match's is long, and
    lazily made), past the games finished but not counted (its ``ahead``)."""
    return max(64, capacity * batch * 4)


def dispatch(tasks: Iterable[GameTask], *, stateful: set[str], on_done: Callable[[list[GameTask], list], None],
             executor: Executor | None = None, cores: Cores | None = None, batch: int = 1, first: int = 8,
             rows: bool = False, on_notice: Callable[[str], None] | None = None,
             stop: Callable[[], bool] | None = None, ahead: Callable[[], int] | None = None) -> None:
    """Play ``tasks`` (consumed lazily, in schedule order) on ``executor`` (None: local workers
    made for them as ``cores`` says, by :func:`~kothkit.playing.executor.executor_for`; one
    unpinned job without it), in batches
    of up to ``batch`` games (the first of up to ``first``); ``on_done(tasks, records)`` gets each
    finished batch, in this process (journal rows instead of records with ``rows``).

    The games go through the one :class:`~kothkit.playing.dispatcher.Dispatcher` (the host's too)
    with ``run``'s policy (:func:`~kothkit.playing.dispatcher.run_policy`): batches grow while they
    take less than the executor's ``batch_seconds``; a stateful bot is in at most one running batch,
    its games started in schedule order; a worker that dies (a trusted function bot that called
    ``os._exit`` or would not stop past its time, the kernel's OOM killer...) takes the batches in
    flight with it, and they are played again, alone, their function bots isolated, where such a
    bot loses its game with ``crash`` or ``timeout`` and is played isolated from then on.  Should
    a worker die during that replay too, :class:`WorkerLost`.  ``on_notice(text)`` hears of both.

    Once ``stop()`` is true (asked after each finished batch), no further game starts: the
    batches in flight finish and are handed to ``on_done`` (a match that its SPRT decided).
    ``ahead()``: games finished but not counted yet (a match counts pairs in schedule order); the
    schedule is read no further than the read-ahead window past them, so that while one worker's
    batch is slow the others do not play on through games that a decision may leave uncounted.
    """
    notice = on_notice or (lambda text: None)
    if executor is None:
        with executor_for(cores or Cores(1, pin=False), on_notice=notice) as local:
            dispatch(tasks, stateful=stateful, on_done=on_done, executor=local, batch=batch, first=first,
                     rows=rows, on_notice=notice, stop=stop, ahead=ahead)
        return
    work = Dispatcher(executor, run_policy(batch, first, bool(stateful)), rows=rows, on_notice=notice)
    work.lane(None, stateful=stateful)
    pending = iter(tasks)
    window = read_ahead(executor.capacity(), batch)
    exhausted = False
    interrupts = _catch_interrupts()
    try:
        while True:
            if STOP[0]:
                raise KeyboardInterrupt  # Ctrl-C while this process played a batch or stored one
            # Asked whether or not the schedule has all been read: a capped match (--games) reads its
            # whole schedule early, and its queue must still empty once the SPRT decides.
            if stop is not None and (work.queued() or not exhausted) and stop():
                exhausted = True
                work.clear()
                work.end()
            if not exhausted:
                room = window - work.queued() - (ahead() if ahead is not None else 0)
                if room <= 0 and not work.queued() and not work.running:
                    room = max(1, batch)  # nothing else would ever be counted: go on
                more = list(itertools.islice(pending, max(0, room)))
                work.submit(more)
                if not more and room > 0:
                    exhausted = True
                    work.end()
            done = work.poll()
            if not done and not work.running:
                return  # nothing running and nothing startable: with nothing busy, that means done
            CALM[0] += 1  # games being stored are stored whole; Ctrl-C is acted on above, after
            for d in done:
                on_done(d.tasks, d.results)
            CALM[0] -= 1
    except KeyboardInterrupt:
        # Each worker gets SIGINT (the terminal sends it one too; a second is ignored): it cuts its
        # game short and hands back its batch's finished games, stored as they come for WIND_DOWN
        # seconds.  Then the workers are killed, and their bots with them.
        STOP[0] = True
        executor.interrupt()
        for d in work.wind_down(WIND_DOWN):
            on_done(d.tasks, d.results)
        raise
    finally:
        CALM[0] = 0
        executor.cancel()
        if interrupts is not None:
            signal.signal(signal.SIGINT, interrupts)


def _catch_interrupts():
    """Take SIGINT over for a tournament (see :func:`kothkit.playing.executor.on_interrupt`); the
    handler it replaced, or None where this is not the main thread (signals are then not ours to take)."""
    STOP[0] = False
    CALM[0] = 0
    if threading.current_thread() is not threading.main_thread():
        return None
    try:
        return signal.signal(signal.SIGINT, on_interrupt)
    except ValueError:  # pragma: no cover - not the main interpreter
        return None


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
    #: Elo ratings with 95% intervals from all the games (see kothkit.store.ratings); None in a game
    #: of more than two seats (its ratings are ``skills``).
    ratings: Ratings | None = None
    #: A game of more than two seats: every bot's openskill rating (kothkit.store.ratings.rate_tables,
    #: the games rated in schedule order: the same at any ``jobs``), best first; else None.
    skills: tuple[SkillRating, ...] | None = None
    #: A game of more than two seats: the crosstable ``(a, b) -> (above, games)``
    #: (kothkit.store.ratings.placed_above); else None.
    above: dict[tuple[str, str], tuple[int, int]] | None = None

    def records(self, journal: Journal) -> Iterable[GameRecord]:
        """The games of this tournament from ``journal``, in schedule order (streamed)."""
        for chunk in _chunks(self.schedule.ids(), 500):
            yield from journal.get(chunk)

    def outlines(self, journal: Journal) -> Iterable[Outline]:
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
    notice_changed_code(j, schedule.game, schedule.code,
                        lambda old: _chunks(attrs.evolve(schedule, code=old).ids(), 500), on_notice)


def notice_changed_code(j: Journal, game: str, code: Mapping[str, Any] | None,
                        stale: Callable[[Any], Iterable[list[str]]], on_notice: Callable[[str], None] | None,
                        until_empty: bool = False) -> None:
    """Say how many of the journal's games are played again because ``game``'s ``code`` is not the
    one its last run had: ``stale(old code)`` gives the ids the games had under it, in chunks
    (``until_empty``: the journal holds none past the first chunk of which it holds none, as a
    match's schedule, which may not end)."""
    last = j.last_run(game)
    if last is None or on_notice is None:
        return
    old = json.loads(last["settings"]).get("game")
    if old == code:
        return
    n = 0
    for chunk in stale(old):
        found = sum(1 for _ in j.results(chunk))
        n += found
        if until_empty and not found:
            break
    if not n:
        return
    new = code or {}
    if old is None:
        why = f"the journal's games of {game} were played before their ids held the game's code"
    elif old.get("plugin") != new.get("plugin"):
        why = f"{game} is now {new.get('plugin') or 'registered in code'} (the journal's games: {old.get('plugin')})"
    else:
        why = f"{game}'s code changed since the journal's games"
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
    cluster: Executor | None = None,
    openings: Openings | None = None,
    scoring: Scoring | None = None,
) -> TournamentResult:
    """Play (or reuse from ``journal``) every game of the round robin and rank the bots.

    ``on_record(result, reused)`` is called with each game's :class:`GameResult` as it is stored or found;
    ``on_notice(text)`` with what the host should know of the run itself (see :func:`dispatch`).
    Bots must already be built (see :func:`build_bots`).  ``cluster``: an executor that plays the
    games instead of ``jobs`` local workers (a checked :class:`kothkit.playing.cluster.ClusterExecutor`).
    ``openings``: round r of each pair plays its two games from the r-th opening (kothkit.playing.openings).
    ``scoring``: how the results count (default: the game's; a challenge's ``[scoring]``,
    :attr:`kothkit.playing.settings.Game.scoring`): it ranks the bots and changes no game.
    """
    limits = limits or info.limits
    rules = {**info.rules, **(rules or {})}
    if openings is not None:  # in the run's rules (so in the ids); each game gets its own (Schedule)
        rules[OPENINGS_KEY] = as_setting(openings)
    code = game_code(info)
    jpath = Path(journal)
    played = reused = 0
    with Journal(jpath) as j:
        # A stateful bot is the code it was given, not the files it keeps (kothkit.bots.kept).
        keeper = Keeper(j, jpath, bots)
        bots = keeper.bots
        schedule = Schedule(game=info.name, bots=tuple(bots), seed=seed, rounds=rounds, limits=limits,
                            rules=rules, trusted=trusted, code=code, seats=info.seats)
        _notice_changed_code(j, schedule, on_notice)
        run_id = j.start_run(info.name, seed, settings_of(limits, rules, code), run_bots(bots, jpath), rounds=rounds)
        batch = FAST_BATCH if bots and all(b.kind == BotKind.FUNCTION for b in bots) else PROGRAM_BATCH
        if cluster is not None:
            # A batch to another machine costs a millisecond or so: batches of any game grow
            # towards the cluster's batch_seconds of play (see dispatch).
            batch = FAST_BATCH
        # Counted from each game's row as it is stored, or as it is found in the journal: the
        # standings agree with the journal without reading it all back at the end.
        tally = Tally(scoring or info.scoring, [b.name for b in bots])
        # The same games by game pair (indices 2k and 2k + 1 of the schedule, key k), for the ratings.
        pairs = PairTally()
        # A game of more seats: its results by schedule index, rated in that order at the end.
        tables: dict[int, GameResult] | None = None if info.two_seats else {}
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
                    tally.add(r.players, r.winner, places=r.seat_places, points=r.seat_points)
                    pairs.add(r.players, r.winner, places[r.id] >> 1)
                    if tables is not None:
                        tables[places[r.id]] = r
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
            keeper.played(n for row in rows for n in json.loads(row.players))
            for row in rows:
                r = result_of(row, seatings)
                tally.add(r.players, r.winner, places=r.seat_places, points=r.seat_points)
                pairs.add(r.players, r.winner, row.idx >> 1)
                if tables is not None:
                    tables[row.idx] = r
                if on_record is not None:
                    on_record(r, False)

        programs = any(b.kind != BotKind.FUNCTION for b in bots)
        try:
            dispatch(unplayed(), executor=cluster, cores=cores_of(info, jobs, limits.pin_cpu, programs),
                     stateful={b.name for b in bots if b.stateful}, batch=batch,
                     first=8 if batch == FAST_BATCH else 1, on_done=lambda tasks, rows: store(rows), rows=True,
                     on_notice=on_notice)
        finally:
            # What the stateful bots kept, games cut short by Ctrl-C included: a resumed run reuses their games.
            keeper.played(keeper.keys)
        j.finish_run(run_id, played, reused)
        table = tally.standings({b.name: b.submitted for b in bots if b.submitted})
    return TournamentResult(game=info.name, seed=seed, bots=tuple(bots), standings=table, played=played,
                            reused=reused, total=schedule.total, journal=jpath, schedule=schedule,
                            **_rated(tables, pairs, [b.name for b in bots]))


def run_bots(bots: Sequence[BotSpec], jpath: Path) -> list[dict[str, Any]]:
    """The bots as a run of the journal ``jpath`` records them (its ``runs`` table): each one's name,
    content hash and where it was loaded from (``kothkit verify`` looks there, and a stateful bot's
    record of its folder is kept under it), its submitted date and what a leaderboard shows of it."""
    return [{"name": b.name, "hash": b.hash, "where": journal_entry(b, jpath),
             **({"submitted": b.submitted} if b.submitted else {}),
             # (what a leaderboard shows of each: kothkit report --markdown)
             **{k: v for k in ("author", "url", "language") if (v := getattr(b, k))}}
            for b in bots]


def _rated(tables: dict[int, GameResult] | None, pairs: PairTally, names: list[str]) -> dict[str, Any]:
    """A result's ratings: Elo of the game pairs, or (``tables``: a game of more seats, its results by
    schedule index) openskill ratings of the results in schedule order and the placed-above crosstable."""
    if tables is None:
        return {"ratings": pairs.rate(names)}
    ordered = [tables[k] for k in sorted(tables)]
    return {"skills": tuple(rate_tables(ordered, names)), "above": placed_above(ordered)}
