"""``kothkit match`` and ``kothkit gauntlet``: one bot against another, or against a field, in game pairs.

A game pair is two games with the same seed slot, each bot opening one; the
statistics count pairs (pentanomial: the first bot's 0, ½, 1, 1½ or 2 points
of a pair), as fastchess and fishtest do.  Pairs are numbered in schedule
order (pair k is games 2k and 2k + 1; in a gauntlet pair k is against the
field's ``k % n``-th bot) and counted in that order, whatever order they finish
in: the numbers, and where an SPRT stops, are the same at any ``--jobs``.
Games are played through the tournament's dispatcher and stored in the
journal like a round robin's (the same game ids, so ``kothkit verify`` checks
them); run again, a match reuses its games and resumes where it stopped.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs

from kothkit.bots.folders import BotKind, BotSpec
from kothkit.game import GameInfo
from kothkit.limits import Limits
from kothkit.playing.openings import KEY as OPENINGS_KEY
from kothkit.playing.openings import Openings, as_setting, game_rules, repeats
from kothkit.playing.schedule import game_key, id_maker, settings_of
from kothkit.playing.seeding import derive
from kothkit.playing.settings import cores_of
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
               rules: dict[str, Any], trusted: bool,
               pairs: int | None, openings: Openings | None = None) -> Iterator[tuple[GameTask, GameTask]]:
    """The schedule: pair k against ``opponents[k % n]``, its seed slot that of a round robin's game
    ``2 * (k // n)`` between the two bots (both games of the pair share it); ``pairs`` caps it.
    With ``openings``, both games of pair k start from its opening (in the rules, so in the ids)."""
    booked = rules if openings is None else {**rules, OPENINGS_KEY: as_setting(openings)}
    key = game_key(info.name, settings_of(limits, booked))
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
    from kothkit.playing.tournament import FAST_BATCH, dispatch

    h2h = HeadToHead(new.name, [o.name for o in opponents], sprt)
    played = reused = 0
    bots = [new, *opponents]
    with Journal(journal) as j:
        booked = rules if openings is None else {**rules, OPENINGS_KEY: as_setting(openings)}
        run_id = j.start_run(info.name, seed, settings_of(limits, booked),
                             [{"name": b.name, "hash": b.hash} for b in bots], kind="match")
        seatings: dict[str, tuple[str, ...]] = {}

        def note(moved: bool) -> None:
            if moved and on_pair is not None:
                on_pair(h2h)

        def unplayed() -> Iterator[GameTask]:
            nonlocal reused
            schedule = pair_tasks(info, new, opponents, seed, limits, rules, trusted, pairs, openings)
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
        dispatch(unplayed(), cores=cores_of(info, jobs, limits.pin_cpu, programs),
                 stateful={b.name for b in bots if b.stateful}, batch=batch,
                 on_done=lambda tasks, rows: store(rows), rows=True,
                 on_notice=on_notice, stop=lambda: h2h.decided)
        j.finish_run(run_id, played, reused)
    h2h.finish()
    again = repeats(whole)
    if again and on_notice is not None:
        hint = ("" if info.opening_rule is None or openings is not None and openings.order != "seed"
                else ": give --openings FILE" if openings is None else "")
        on_notice(f"warning: {again} of the {len(whole)} game pairs played repeat an earlier pair move for move "
                  f"(deterministic bots: such pairs count the same games again){hint}")
    return h2h, played, reused


# -- printing -----------------------------------------------------------------------------


