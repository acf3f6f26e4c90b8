"""``kothkit match`` and ``kothkit gauntlet``: one bot against another, or against a field, in game pairs
(a gauntlet of a game of more than two seats: at tables of the field, :func:`play_tables`).

A game pair is two games with the same seed slot, each bot opening one; the
statistics count pairs (pentanomial: the first bot's 0, ½, 1, 1½ or 2 points
of a pair), as fastchess and fishtest do.  Pairs are numbered in schedule
order (pair k is games 2k and 2k + 1; in a gauntlet pair k is against the
field's ``k % n``-th bot) and counted in that order, whatever order they finish
in: the numbers, and where an SPRT stops, are the same at any ``--jobs``.
Games are played through the tournament's dispatcher and stored in the
journal like a round robin's (the same game ids, so ``kothkit verify`` checks
them); run again, a match reuses its games and resumes where it stopped.  As in ``run``, a
stateful bot is the code it was given, not the files it keeps (the journal's ``kept`` records),
each bot's folder is recorded with the run (``kothkit verify`` finds it there), and a game's id
holds the game's code: an edited game plays its games again, with a notice.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from kothkit.bots.folders import BotKind, BotSpec
from kothkit.game import GameInfo
from kothkit.limits import Limits
from kothkit.playing.keeping import Keeper
from kothkit.playing.openings import KEY as OPENINGS_KEY
from kothkit.playing.openings import Openings, as_setting, game_rules, repeats
from kothkit.playing.schedule import game_key, id_maker, settings_of
from kothkit.playing.seeding import derive
from kothkit.playing.settings import cores_of
from kothkit.plugins import game_code
from kothkit.scoring import Scoring, game_scores, mean_and_error
from kothkit.store.journal import GameRow, Journal, result_of
from kothkit.store.ratings import SPRT, MatchStats, Pentanomial, match_stats
from kothkit.store.records import GameTask

#: Games a match (or a gauntlet, per opponent) plays without --games and without an SPRT.
DEFAULT_GAMES = 100
#: Pairs looked up in the journal at a time.
CHUNK = 32
#: Most games of function bots per batch under an SPRT (tens of milliseconds of play).
SPRT_BATCH = 32


@attrs.define
class Tally:
    """One opponent's games as the new bot sees them."""

    wins: int = 0
    losses: int = 0
    draws: int = 0
    penta: Pentanomial = attrs.field(factory=Pentanomial)

    def stats(self) -> MatchStats:
        return match_stats(self.penta, self.wins, self.losses, self.draws)


@attrs.define
class HeadToHead:
    """The running count of a match or gauntlet, pair by pair in schedule order."""

    new: str
    opponents: list[str]
    sprt: SPRT | None = None
    tallies: dict[str, Tally] = attrs.field(init=False)
    overall: Tally = attrs.field(init=False, factory=Tally)
    #: Pair number -> the new bot's score in its games 0 and 1 (None until finished).
    _waiting: dict[int, list[float | None]] = attrs.field(init=False, factory=dict)
    #: Pairs counted so far (the next to count is this one).
    counted: int = 0
    llr: float = 0.0
    #: "H1", "H0" or None.
    decision: str | None = None
    #: Games finished but not counted: after the SPRT's decision, or of a pair left incomplete.
    extra: int = 0

    def __attrs_post_init__(self) -> None:
        self.tallies = {o: Tally() for o in self.opponents}

    @property
    def decided(self) -> bool:
        return self.decision is not None

    def ahead(self) -> int:
        """Games finished but not counted yet (their pair waits for an earlier one, or for its other game)."""
        return sum(s is not None for slot in self._waiting.values() for s in slot)

    def add(self, index: int, winner: str | None) -> bool:
        """Game ``index`` of the schedule ended with ``winner``; True if that completed pairs to count."""
        p, g = divmod(index, 2)
        score = 0.5 if winner is None else 1.0 if winner == self.new else 0.0
        slot = self._waiting.setdefault(p, [None, None])
        slot[g] = score
        moved = False
        while not self.decided:
            ready = self._waiting.get(self.counted)
            if ready is None or None in ready:
                break
            del self._waiting[self.counted]
            self._count(self.opponents[self.counted % len(self.opponents)], [s for s in ready if s is not None])
            self.counted += 1
            moved = True
        return moved

    def _count(self, opponent: str, scores: list[float]) -> None:
        for t in (self.tallies[opponent], self.overall):
            for s in scores:
                if s == 1:
                    t.wins += 1
                elif s == 0:
                    t.losses += 1
                else:
                    t.draws += 1
            t.penta = t.penta.add(sum(scores))
        if self.sprt is not None:
            self.llr = self.sprt.llr(self.overall.penta)
            self.decision = self.sprt.decision(self.llr)

    def finish(self) -> None:
        self.extra = sum(1 for slot in self._waiting.values() for s in slot if s is not None)


def pair_tasks(info: GameInfo, new: BotSpec, opponents: Sequence[BotSpec], seed: int, limits: Limits,
               rules: dict[str, Any], trusted: bool, pairs: int | None, openings: Openings | None = None,
               code: Mapping[str, Any] | None = None) -> Iterator[tuple[GameTask, GameTask]]:
    """The schedule: pair k against ``opponents[k % n]``, its seed slot that of a round robin's game
    ``2 * (k // n)`` between the two bots (both games of the pair share it); ``pairs`` caps it.
    With ``openings``, both games of pair k start from its opening (in the rules, so in the ids).
    ``code``: the game's code (:func:`kothkit.plugins.game_code`), in the ids as in a round robin's."""
    booked = rules if openings is None else {**rules, OPENINGS_KEY: as_setting(openings)}
    key = game_key(info.name, settings_of(limits, booked, code))
    n = len(opponents)
    plans = []
    for opp in opponents:
        a, b = sorted((new.name, opp.name))
        seats = ((new, opp), (opp, new))
        plans.append((a, b, seats, [id_maker(key, s, (a, b)) for s in seats]))
    for k in itertools.count() if pairs is None else range(pairs):
        a, b, seats, ids = plans[k % n]
        slot = 2 * (k // n)
        game_seed = derive(seed, "game", a, b, slot)
        # The pair's opening: from the run's openings (in the ids through the key) and the slot.
        pair_rules = rules if openings is None else game_rules(info, booked, seed, slot)
        first, second = (GameTask(id=ids[g](f"{slot}\x1f{seed}"), game=info.name, players=seats[g], seed=game_seed,
                                  limits=limits, rules=pair_rules, index=2 * k + g,
                                  trusted=trusted) for g in (0, 1))
        yield first, second


def play(info: GameInfo, new: BotSpec, opponents: Sequence[BotSpec], *, seed: int, journal: Path, jobs: int,
         limits: Limits, rules: dict[str, Any], trusted: bool, pairs: int | None, sprt: SPRT | None,
         on_pair: Callable[[HeadToHead], None] | None = None,
         on_notice: Callable[[str], None] | None = None,
         openings: Openings | None = None) -> tuple[HeadToHead, int, int]:
    """Play (or reuse from ``journal``) the pairs until ``pairs`` are done or the SPRT decides.

    Returns the count, and how many games were played and reused.  ``on_notice`` hears, at the end,
    how many of the pairs played repeated an earlier pair move for move.
    """
    from kothkit.playing.tournament import FAST_BATCH, dispatch, notice_changed_code, run_bots

    h2h = HeadToHead(new.name, [o.name for o in opponents], sprt)
    played = reused = 0
    code = game_code(info)
    with Journal(journal) as j:
        keeper, bots = _kept(j, journal, new, opponents)
        new, opponents = bots[0], bots[1:]

        def stale(old: Any) -> Iterator[list[str]]:  # the schedule's ids under the journal's last code
            pairs_then = pair_tasks(info, new, opponents, seed, limits, rules, trusted, pairs, openings, old)
            while chunk := [t.id for pair in itertools.islice(pairs_then, CHUNK) for t in pair]:
                yield chunk

        notice_changed_code(j, info.name, code, stale, on_notice, until_empty=True)
        booked = rules if openings is None else {**rules, OPENINGS_KEY: as_setting(openings)}
        run_id = j.start_run(info.name, seed, settings_of(limits, booked, code), run_bots(bots, journal),
                             kind="match")
        seatings: dict[str, tuple[str, ...]] = {}

        def note(moved: bool) -> None:
            if moved and on_pair is not None:
                on_pair(h2h)

        def unplayed() -> Iterator[GameTask]:
            nonlocal reused
            schedule = pair_tasks(info, new, opponents, seed, limits, rules, trusted, pairs, openings, code)
            while not h2h.decided:
                chunk = [t for pair in itertools.islice(schedule, CHUNK) for t in pair]
                if not chunk:
                    return
                index = {t.id: t.index for t in chunk}
                found = {r.id: r for r in j.results(list(index))}
                for t in chunk:  # in schedule order, so that the count moves on as it would have
                    r = found.get(t.id)
                    if r is not None:
                        reused += 1
                        note(h2h.add(t.index, r.winner))
                for t in chunk:
                    # h2h.add above may have decided it (mypy keeps its narrowing across the call).
                    if h2h.decided:
                        return  # type: ignore[unreachable]
                    if t.id not in found:
                        yield t

        #: Pair number -> its two games' replies (the games played here), to find pairs that repeat.
        halves: dict[int, list[Any]] = {}
        whole: list[tuple[object, ...]] = []

        def store(rows: list[GameRow]) -> None:
            nonlocal played
            j.add_rows(rows)
            played += len(rows)
            keeper.played(n for row in rows for n in json.loads(row.players))
            for row in rows:
                note(h2h.add(row.idx, result_of(row, seatings).winner))
                p, g = divmod(row.idx, 2)
                half = halves.setdefault(p, [None, None])
                half[g] = (row.players, row.winner, tuple(json.dumps(m[:2]) for m in json.loads(row.moves)))
                if None not in half:
                    whole.append(tuple(halves.pop(p)))

        # Under an SPRT, small batches: games already handed out when it decides are played for nothing.
        batch = (FAST_BATCH if sprt is None else SPRT_BATCH) if all(b.kind == BotKind.FUNCTION for b in bots) else 1
        # a core per seat for a game that allows pondering, as kothkit run lays it out
        programs = any(b.kind != BotKind.FUNCTION for b in bots)
        try:
            dispatch(unplayed(), cores=cores_of(info, jobs, limits.pin_cpu, programs),
                     stateful={b.name for b in bots if b.stateful}, batch=batch,
                     on_done=lambda tasks, rows: store(rows), rows=True,
                     on_notice=on_notice, stop=lambda: h2h.decided, ahead=h2h.ahead)
        finally:
            keeper.played(keeper.keys)  # (games cut short by Ctrl-C included, as run does)
        j.finish_run(run_id, played, reused)
    h2h.finish()
    again = repeats(whole)
    if again and on_notice is not None:
        hint = ("" if info.opening_rule is None or openings is not None and openings.order != "seed"
                else ": give --openings FILE" if openings is None else "")
        on_notice(f"warning: {again} of the {len(whole)} game pairs played repeat an earlier pair move for move "
                  f"(deterministic bots: such pairs count the same games again){hint}")
    return h2h, played, reused


def _kept(j: Journal, journal: Path, new: BotSpec, opponents: Sequence[BotSpec]) -> tuple[Keeper, list[BotSpec]]:
    """As ``run`` does (:class:`~kothkit.playing.keeping.Keeper`): each stateful bot under the identity
    the journal's record of its folder gives it (the code it was given, not the files it kept: a
    rerun reuses its games), recorded again after each batch of its games."""
    keeper = Keeper(j, Path(journal), [new, *opponents])
    return keeper, list(keeper.bots)


# -- a gauntlet of a game of more than two seats: tables, no pairs ------------------------------

@attrs.define
class TableGauntlet:
    """A candidate's games at tables of the field (a game of more than two seats): its score of each
    game as the game counts it (:func:`kothkit.scoring.game_scores`), their mean and standard error,
    and against each opponent how often it placed above, level with and below it."""

    new: str
    scoring: Scoring
    #: The candidate's score of each game, in the order the games were counted.
    scores: list[float] = attrs.field(factory=list)
    #: Opponent -> [games the candidate placed above it, level with it, below it].
    against: dict[str, list[int]] = attrs.field(factory=dict)

    def add(self, players: Sequence[str], winner: str | None, places: Sequence[int] | None,
            points: Sequence[float] | None) -> None:
        """One more game (a journal's row or record: its seats' places and points)."""
        if self.new not in players:
            return
        me = list(players).index(self.new)
        n = len(players)
        if places is None:
            places = [1] * n if winner is None else [1 if p == winner else 2 for p in players]
        self.scores.append(game_scores(self.scoring, players, winner, places, points)[me])
        for i, other in enumerate(players):
            if i != me:
                cell = self.against.setdefault(other, [0, 0, 0])
                cell[0 if places[me] < places[i] else 1 if places[me] == places[i] else 2] += 1

    @property
    def mean_error(self) -> tuple[float, float | None]:
        """The mean score per game and its standard error (None under two games)."""
        return mean_and_error(sum(self.scores), sum(x * x for x in self.scores), len(self.scores))


def table_tasks(info: GameInfo, new: BotSpec, opponents: Sequence[BotSpec], seed: int, limits: Limits,
                rules: dict[str, Any], trusted: bool, games: int,
                code: Mapping[str, Any] | None = None) -> Iterator[GameTask]:
    """The schedule of a gauntlet at tables: game g seats the candidate (in seat ``g % k``, so that
    it sits in every seat in turn) with the next ``k - 1`` bots of the field in turn, k being the
    game's table size among the candidate and the field; ids and seeds from the seed, the game's
    number and the bots' names; ``code`` (the game's) in the ids, as in :func:`pair_tasks`."""
    k = info.table_size(len(opponents) + 1)
    key = game_key(info.name, settings_of(limits, rules, code))
    n = len(opponents)
    for g in range(games):
        others = [opponents[(g * (k - 1) + j) % n] for j in range(k - 1)]
        seat = g % k
        seats = tuple(others[:seat] + [new] + others[seat:])
        names = sorted(b.name for b in seats)
        make = id_maker(key, seats, ("gauntlet", *names))
        yield GameTask(id=make(f"{g}\x1f{seed}"), game=info.name, players=seats,
                       seed=derive(seed, "gauntlet", g, *names), limits=limits, rules=rules, index=g, trusted=trusted)


def play_tables(info: GameInfo, new: BotSpec, opponents: Sequence[BotSpec], *, seed: int, journal: Path, jobs: int,
                limits: Limits, rules: dict[str, Any], trusted: bool, games: int,
                on_notice: Callable[[str], None] | None = None,
                scoring: Scoring | None = None) -> tuple[TableGauntlet, int, int]:
    """Play (or reuse from ``journal``) a gauntlet's ``games`` tables (:func:`table_tasks`); the
    candidate's results, and how many games were played and reused.  ``scoring``: how the results
    count (default: the game's; a challenge's ``[scoring]``, :attr:`kothkit.playing.settings.Game.scoring`)."""
    from kothkit.playing.tournament import FAST_BATCH, dispatch, notice_changed_code, run_bots

    result = TableGauntlet(new.name, scoring or info.scoring)
    played = reused = 0
    code = game_code(info)
    with Journal(journal) as j:
        keeper, bots = _kept(j, journal, new, opponents)
        new, opponents = bots[0], bots[1:]
        notice_changed_code(j, info.name, code, lambda old: [[t.id for t in table_tasks(
            info, new, opponents, seed, limits, rules, trusted, games, old)]], on_notice)
        run_id = j.start_run(info.name, seed, settings_of(limits, rules, code), run_bots(bots, journal),
                             kind="match")

        def unplayed() -> Iterator[GameTask]:
            nonlocal reused
            tasks = list(table_tasks(info, new, opponents, seed, limits, rules, trusted, games, code))
            for i in range(0, len(tasks), CHUNK):
                chunk = tasks[i:i + CHUNK]
                found = {r.id: r for r in j.results([t.id for t in chunk])}
                for t in chunk:
                    r = found.get(t.id)
                    if r is None:
                        yield t
                    else:
                        reused += 1
                        result.add(r.players, r.winner, r.seat_places, r.seat_points)

        def store(rows: list[GameRow]) -> None:
            nonlocal played
            j.add_rows(rows)
            played += len(rows)
            keeper.played(n for row in rows for n in json.loads(row.players))
            for row in rows:
                r = result_of(row)
                result.add(r.players, r.winner, r.seat_places, r.seat_points)

        batch = FAST_BATCH if all(b.kind == BotKind.FUNCTION for b in bots) else 1
        programs = any(b.kind != BotKind.FUNCTION for b in bots)
        try:
            dispatch(unplayed(), cores=cores_of(info, jobs, limits.pin_cpu, programs),
                     stateful={b.name for b in bots if b.stateful}, batch=batch,
                     on_done=lambda tasks, rows: store(rows), rows=True, on_notice=on_notice)
        finally:
            keeper.played(keeper.keys)
        j.finish_run(run_id, played, reused)
    return result, played, reused
