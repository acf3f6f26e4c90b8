"""The schedule: a round robin of pairs, or tables of more seats; generated lazily from the seed.

**Two-seat games** (a game that seats exactly two): every pair of bots plays ``2 * rounds``
games; the opener (seat 0) of the pair's first game is drawn from the seed, and openers alternate after that.
Within a round, pairs come in a seeded order (by blocks of :data:`BLOCK` bots
when there are more).
Each game's seed and its place in the order come from its slot (the pair's
names and the game's number), so the schedule of a pair never depends on
which other bots take part.  A game's id adds the game, its settings (with the
code that decides its outcomes: its plugin's version and a hash of its
outcome modules, see :func:`kothkit.plugins.game_code`) and both
bots' content hashes: a changed bot changes exactly its own games' ids, a
changed game all of its own.

**Tables** (a game that seats more than two, or a range: :attr:`Schedule.seats`): with B bots,
games of k = min(B, most seats) bots (none while B is below the fewest seats).  A round is B
games (:mod:`kothkit.playing.tables`: a cyclic design over the bots' positions, each bot's
position drawn from the seed): every bot plays exactly k games a round, once in each seat (so ``rounds``
rounds make k * rounds games a bot); with B <= k every game seats everyone.  How often two bots
meet differs by at most one from pair to pair wherever the design's search finds such a design:
for 2 <= B <= 40, 3 <= k <= 8 and one or two rounds, every case but the 30 (of 468) that
``tests/core/test_schedule_tables.py`` lists (``SPREAD_TWO``), where it differs by two (most of them
because no cyclic design does better: :mod:`kothkit.playing.tables` says which).  A table's
id hashes its bots in seat order and its slot (its round and the seed), its seed is
``derive(seed, "table", round, *names in seat order)``: a game with the same bots in the same seats
in the same round is the same game in any field.  Churn: a replaced bot (same name, new code)
changes exactly its own games; adding or dropping a bot changes B, hence the design and the
positions, so every table changes, as a rule (benchmarks/bench_tables.py counts them: all of them in
its fields); a whole schedule is B * rounds games, fewer than the 2 * (B - 1) * rounds that one new
bot adds to a round robin of the same field.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import attrs

from kothkit.bots.folders import BotSpec
from kothkit.limits import LATER_LIMITS, Limits
from kothkit.playing.openings import KEY as OPENINGS_KEY
from kothkit.playing.openings import game_rules
from kothkit.playing.seeding import derive, deriver
from kothkit.store.records import GameTask

#: Bots per group: with more bots than this, a round plays the pairs of two groups (a block of
#: the pairing table) before the next block, in a snake over the table, so that an isolated
#: function bot's host, kept by each worker in a bounded pool (kothkit.playing.referee.HostPool), serves
#: many games before it is evicted.  Fixed, not tied to the pool's size: the order decides what
#: a stateful bot sees, so it must be the same on every machine.
BLOCK = 16


#: The bots of a game in seat order (two in a pair's game, k at a table).
Seats = tuple[BotSpec, ...]


def seat_range(seats: int | tuple[int, int]) -> tuple[int, int]:
    """(fewest, most) of a game's ``GameInfo.seats`` (a number or a range)."""
    return (seats, seats) if isinstance(seats, int) else (int(seats[0]), int(seats[1]))


def game_key(game: str, settings: Mapping[str, Any]) -> str:
    """The part of every game id that a whole schedule shares (computed once per schedule)."""
    return hashlib.sha256(json.dumps([game, settings], sort_keys=True, default=str).encode()).hexdigest()


def game_id(game: str, settings: Mapping[str, Any], players: tuple[BotSpec, ...], slot: tuple[object, ...],
            key: str | None = None) -> str:
    return id_maker(key or game_key(game, settings), players, slot[:-1])(slot[-1])


def id_maker(key: str, players: tuple[BotSpec, ...], head: tuple[object, ...]) -> Callable[[object], str]:
    """``f(last) == game_id(..., players, (*head, last), key)``: the shared part is hashed once."""
    seats = "\x1e".join(f"{b.name}\x1f{b.hash}" for b in players)
    base = hashlib.sha256(f"{key}\x1d{seats}\x1d".encode() + "".join(f"{x}\x1f" for x in head).encode())

    def f(last: object) -> str:
        h = base.copy()
        h.update(str(last).encode())
        return h.hexdigest()[:32]

    return f


def table_slot(game: str, settings: Mapping[str, Any], seed: int, players: tuple[BotSpec, ...], game_seed: int,
               game_id_seen: str, rounds: int) -> int | None:
    """The round of a table's game in a schedule of tournament seed ``seed``: the ``r < rounds`` whose
    game seed (``derive(seed, "table", r, *names in seat order)``) and id (``game_id(game, settings,
    players, ("table", r, seed))``) are ``game_seed`` and ``game_id_seen``; None if none is.  What a
    journal's reader needs to re-derive a table's id (as kothkit.playing.verify does a pair's)."""
    names = [b.name for b in players]
    make = id_maker(game_key(game, settings), players, ("table",))
    for r in range(rounds):
        if derive(seed, "table", r, *names) == game_seed and make(f"{r}\x1f{seed}") == game_id_seen:
            return r
    return None


_DEFAULT_LIMITS = attrs.asdict(Limits())


def settings_of(limits: Limits, rules: Mapping[str, Any], code: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The settings that make up a game's identity: limits that can change a result, rules, and
    the game's code (:func:`kothkit.plugins.game_code`; absent in journals from before it was)."""
    given, default = attrs.asdict(limits), _DEFAULT_LIMITS
    kept = {k: v for k, v in given.items() if k not in LATER_LIMITS or v != default[k]}
    settings = {"limits": kept, "rules": dict(sorted(rules.items()))}
    if code is not None:
        settings["game"] = dict(code)
    return settings


def pair_plan(key: str, seed: int, a: BotSpec, b: BotSpec) -> tuple[tuple[Seats, Seats], list[Callable[[object], str]],
                                                                  Callable[[object], int]]:
    """What a pair's games (``a``'s name before ``b``'s) share: their two seat orders (game ``k``
    is in ``orders[k & 1]``), the id of game ``k`` is ``ids[k & 1](f"{k}\x1f{seed}")`` and its
    seed ``game_seed(k)``.  All of it depends on the pair alone (:class:`Schedule`'s games, and
    the host's schedule kept pair by pair, kothkit.serve.host)."""
    first, second = (a, b) if derive(seed, "opener", a.name, b.name) % 2 == 0 else (b, a)
    orders: tuple[Seats, Seats] = ((first, second), (second, first))
    return orders, [id_maker(key, o, (a.name, b.name)) for o in orders], deriver(seed, "game", a.name, b.name)


def groups(names: Iterable[str]) -> dict[str, int]:
    """Each bot's group (see BLOCK): its place among the bots by name, BLOCK a group."""
    return {n: i // BLOCK for i, n in enumerate(sorted(names))}


def block(group: Mapping[str, int], a: str, b: str) -> tuple[int, int]:
    """The block of pair (a, b) (``a`` first by name): a round plays its pairs by block, then in the
    seeded order ``derive(seed, "order", round, a, b)``.  With many bots, a round goes block by
    block (see BLOCK); the block is the same for every pair of a smaller tournament, whose order
    is then the seeded one alone."""
    i, j = group[a], group[b]
    return i, (j if i % 2 == 0 else -j)  # rows of blocks in a snake: the last group is kept


@attrs.frozen
class Schedule:
    game: str
    bots: tuple[BotSpec, ...]
    seed: int
    #: Rounds: in each, every pair plays two games (each bot opening one); at tables, every bot plays
    #: k games (once in each seat), B games in all.
    rounds: int
    limits: Limits
    rules: Mapping[str, Any] = attrs.field(factory=dict)
    #: Function bots are called in the referee's own process (see GameTask).
    trusted: bool = False
    #: The game's code identity (see :func:`settings_of`), part of every id.
    code: Mapping[str, Any] | None = None
    #: The game's ``GameInfo.seats``: 2 (a round robin of pairs), or more, or a range (tables).
    seats: int | tuple[int, int] = 2

    @property
    def tables(self) -> bool:
        """Whether this schedule seats tables (the game seats anything but exactly two)."""
        return seat_range(self.seats) != (2, 2)

    @property
    def table_size(self) -> int:
        """Seats in a table of this field (0: too few bots for a game)."""
        fewest, most = seat_range(self.seats)
        n = len(self.bots)
        return min(n, most) if n >= max(fewest, 2) else 0

    @property
    def total(self) -> int:
        n = len(self.bots)
        if self.tables:
            return n * self.rounds if self.table_size else 0
        return n * (n - 1) // 2 * 2 * self.rounds

    def pairs(self) -> list[tuple[BotSpec, BotSpec]]:
        ordered = sorted(self.bots, key=lambda b: b.name)
        return list(itertools.combinations(ordered, 2))

    def __iter__(self) -> Iterator[GameTask]:
        """Tasks in play order: round by round, pairs in a seeded order within a round."""
        seed, rules, make = self.seed, dict(self.rules), GameTask
        game, limits, trusted = self.game, self.limits, self.trusted
        booked = OPENINGS_KEY in rules  # openings: each game's own rules (its round's opening)
        if booked:
            from kothkit.plugins import get_game
        info = get_game(game) if booked else None
        if self.tables:
            for t in self._tables():
                yield attrs.evolve(t, rules=game_rules(info, rules, seed, 2 * (t.index // len(self.bots)))) \
                    if info is not None else t
            return
        for index, (k, seats, game_id_of, game_seed) in enumerate(self._slots()):
            yield make(id=game_id_of(f"{k}\x1f{seed}"), game=game, players=seats, seed=game_seed(k), limits=limits,
                       rules=game_rules(info, rules, seed, k) if info is not None else rules, index=index,
                       trusted=trusted)

    def ids(self) -> Iterator[str]:
        """The games' ids, in play order (what ``iter`` gives, without building the tasks)."""
        seed = self.seed
        if self.tables:
            yield from (t.id for t in self._tables())
            return
        for k, _seats, game_id_of, _game_seed in self._slots():
            yield game_id_of(f"{k}\x1f{seed}")

    def positions(self) -> list[BotSpec]:
        """The bots by their positions in a table schedule's design (drawn from the seed: the order of
        ``derive(seed, "position", name)``)."""
        return sorted(self.bots, key=lambda b: (derive(self.seed, "position", b.name), b.name))

    def _tables(self) -> Iterator[GameTask]:
        """A table schedule's games in play order: round by round, game i of a round seating the
        positions i + d (mod B) for the round's offsets d (:func:`kothkit.playing.tables.offsets`),
        in a seat order drawn from the seed for each round."""
        from kothkit.playing.tables import offsets

        k = self.table_size
        if not k:
            return
        ring = self.positions()
        n, seed = len(ring), self.seed
        key = game_key(self.game, settings_of(self.limits, self.rules, self.code))
        rules = dict(self.rules)
        for r, design in enumerate(offsets(n, k, self.rounds)):
            ds = sorted(design, key=lambda d: (derive(seed, "seat", r, d), d))
            for i in range(n):
                seats = tuple(ring[(i + d) % n] for d in ds)
                gid = id_maker(key, seats, ("table",))(f"{r}\x1f{seed}")
                yield GameTask(id=gid, game=self.game, players=seats,
                               seed=derive(seed, "table", r, *(b.name for b in seats)), limits=self.limits,
                               rules=rules, index=r * n + i, trusted=self.trusted)

    def _slots(self) -> Iterator[tuple[int, Seats, Callable[[object], str], Callable[[object], int]]]:
        """(k, seats, id of "k\x1fseed", seed of k) for every game, in play order.

        Per pair, what does not change from round to round is worked out once: its
        seat orders, and the hash states its games' ids and seeds extend.  (Ids and
        seeds are exactly those of game_id and derive: only the work is shared.)
        """
        key = game_key(self.game, settings_of(self.limits, self.rules, self.code))
        seed = self.seed
        plans = [(a.name, b.name, *pair_plan(key, seed, a, b)) for a, b in self.pairs()]
        group = groups(b.name for b in self.bots)
        # derive(seed, "order", r, a, b) of each pair and round, from the hash state of its common start.
        order = deriver(seed, "order")
        for r in range(self.rounds):
            in_order = sorted(plans, key=lambda p: (block(group, p[0], p[1]), order(f"{r}\x1f{p[0]}\x1f{p[1]}")))
            for _a, _b, orders, ids, game_seed in in_order:
                for k in (2 * r, 2 * r + 1):
                    yield k, orders[k & 1], ids[k & 1], game_seed

    def changed(self, bots: Iterable[BotSpec]) -> tuple[Schedule, Changes]:
        """This schedule with ``bots`` instead (bots added, replaced by a new content, dropped), and
        the games that adds and removes: what :meth:`Planned.change` gives, from scratch."""
        before = Planned.of(self)
        after, changes = before.change(bots)
        return after.schedule, changes


@attrs.frozen
class _Pair:
    """A pair's games: all of them but their places in the order, which depend on the pair
    alone (see :func:`pair_plan`)."""

    #: Game k: (seats, id, seed).
    games: tuple[tuple[Seats, str, int], ...]
    #: Per round: the pair's seeded order (derive(seed, "order", round, a, b)).
    order: tuple[int, ...]


@attrs.frozen
class Changes:
    """What a change of a schedule's bots adds and removes."""

    #: The games new to the schedule (a new bot's, a replaced bot's new ones), in play order,
    #: each with its id, seed and index in the new schedule.
    added: tuple[GameTask, ...]
    #: The ids of the games no longer in it (a dropped bot's, a replaced bot's old ones).
    removed: frozenset[str]
    #: Bots added or replaced, and bots dropped or replaced.
    new: frozenset[str]
    gone: frozenset[str]
    #: Whether the games kept changed places (the bots' names changed: the pairs' order did).
    moved: bool


@attrs.frozen(eq=False)
class Planned:
    """A :class:`Schedule` kept pair by pair, so that a change of its bots works out only the
    changed bots' pairs (their games' ids and seeds): for a new bot among 200, some milliseconds,
    where the whole schedule takes seconds.  Immutable: :meth:`change` gives a new one, so a
    planner may work on the next while the current one is read.

    Its games and their places are exactly :class:`Schedule`'s (``tests/core/test_schedule.py``).
    A table schedule (:attr:`Schedule.tables`) is kept whole instead (``tables``): a change of its
    field works it out again, B * rounds games, and keeps the games whose ids it still has
    (``tests/core/test_schedule_tables.py``).
    """

    schedule: Schedule
    #: (a, b) with a's name first -> its games.
    pairs: Mapping[tuple[str, str], _Pair]
    #: Per round: pair -> its place among the round's pairs.
    ranks: tuple[Mapping[tuple[str, str], int], ...]
    #: Game id -> (its pair, its number k in the pair); at a table, (its bots' names by name, its round).
    where: Mapping[str, tuple[tuple[str, ...], int]]
    #: A table schedule's games: id -> task (with its place); empty in a round robin of pairs.
    tables: Mapping[str, GameTask] = attrs.field(factory=dict)

    @classmethod
    def empty(cls, schedule: Schedule) -> Planned:
        """A plan of ``schedule``'s settings with no bots yet (changed to its bots by :meth:`change`)."""
        return cls(schedule=attrs.evolve(schedule, bots=()), pairs={}, ranks=tuple({} for _ in range(schedule.rounds)),
                   where={})

    @classmethod
    def of(cls, schedule: Schedule) -> Planned:
        return cls.empty(schedule).change(schedule.bots)[0]

    def __contains__(self, game_id: object) -> bool:
        return game_id in self.where

    def __len__(self) -> int:
        return len(self.where)

    def index(self, game_id: str) -> int:
        """The place of game ``game_id`` in the schedule (KeyError if it is not in it)."""
        if self.schedule.tables:
            return self.tables[game_id].index
        p, k = self._pair_of(game_id)
        return (k >> 1) * 2 * len(self.pairs) + 2 * self.ranks[k >> 1][p] + (k & 1)

    def task(self, game_id: str) -> GameTask:
        """Game ``game_id`` as a task, with its place now."""
        if self.schedule.tables:
            return self.tables[game_id]
        p, k = self._pair_of(game_id)
        seats, gid, game_seed = self.pairs[p].games[k]
        s = self.schedule
        rules = dict(s.rules)
        if OPENINGS_KEY in rules:  # openings: the game's own rules (its round's opening), as Schedule's
            from kothkit.plugins import get_game

            rules = game_rules(get_game(s.game), rules, s.seed, k)
        return GameTask(id=gid, game=s.game, players=seats, seed=game_seed, limits=s.limits, rules=rules,
                        index=self.index(gid), trusted=s.trusted)

    def tasks(self, ids: Iterable[str]) -> list[GameTask]:
        """The games ``ids`` as tasks, in play order."""
        return sorted((self.task(i) for i in ids), key=lambda t: t.index)

    def backlog(self, tasks: Iterable[GameTask], new: Iterable[str]) -> list[GameTask]:
        """The games of ``new`` bots among ``tasks`` (the others left out) in the order a backlog
        plays them: each new bot's opponents in a seeded random order, round by round (a pair's
        two games of a round together), so that its games so far are a fair sample of the field
        whenever its standing is read; the new bots taking turns, a game pair each (a table: a game
        each), so that each author's brain gets its share of the workers.  A game between two new
        bots comes once, in the turn of the first to reach it.  The same schedule, tasks and bots
        give the same order."""
        order = deriver(self.schedule.seed, "backlog")
        fresh = sorted(set(new))
        tabled = self.schedule.tables
        mine: dict[str, list[tuple[tuple[int, int, int], GameTask]]] = {b: [] for b in fresh}
        for t in tasks:
            names, k = self.where[t.id]
            rnd = k if tabled else k >> 1
            for me in names:
                if me in mine:
                    other = "\x1f".join(n for n in names if n != me)
                    mine[me].append(((rnd, order(f"{me}\x1f{other}\x1f{rnd}"), k), t))
        queues = [[t for _key, t in sorted(mine[b], key=lambda e: e[0])] for b in fresh]
        out: list[GameTask] = []
        taken: set[str] = set()
        at = [0] * len(queues)
        left = True
        while left:
            left = False
            for q, queue in enumerate(queues):
                n = 0
                while at[q] < len(queue) and n < (1 if tabled else 2):  # a game pair (a table) a turn
                    t = queue[at[q]]
                    at[q] += 1
                    if t.id not in taken:
                        taken.add(t.id)
                        out.append(t)
                        n += 1
                left = left or at[q] < len(queue)
        return out

    def players(self, game_id: str) -> tuple[str, ...]:
        """The names of game ``game_id``'s bots in seat order."""
        if self.schedule.tables:
            return tuple(b.name for b in self.tables[game_id].players)
        p, k = self._pair_of(game_id)
        return tuple(b.name for b in self.pairs[p].games[k][0])

    def _pair_of(self, game_id: str) -> tuple[tuple[str, str], int]:
        names, k = self.where[game_id]
        return (names[0], names[1]), k

    def change(self, bots: Iterable[BotSpec]) -> tuple[Planned, Changes]:
        """The schedule of ``bots`` (each bot's name once), and what changed from this one."""
        from kothkit.playing.seeding import derive

        s = self.schedule
        specs = {b.name: b for b in bots}
        before = {b.name: b.hash for b in s.bots}
        gone = {n for n, h in before.items() if n not in specs or specs[n].hash != h}
        new = sorted(n for n, b in specs.items() if before.get(n) != b.hash)
        if s.tables:
            return self._change_tables(specs, gone, new, set(specs) != set(before))
        pairs = dict(self.pairs)
        where = dict(self.where)
        removed: set[str] = set()
        for p in [p for p in pairs if p[0] in gone or p[1] in gone]:
            for _seats, gid, _seed in pairs.pop(p).games:
                removed.add(gid)
                del where[gid]
        key = game_key(s.game, settings_of(s.limits, s.rules, s.code))
        seed, rounds = s.seed, s.rounds
        added_pairs = []
        for n in new:
            for m in specs:
                p = (n, m) if n < m else (m, n)
                if m == n or p in pairs:
                    continue
                a, b = specs[p[0]], specs[p[1]]
                orders, ids, game_seed = pair_plan(key, seed, a, b)
                games = tuple((orders[k & 1], ids[k & 1](f"{k}\x1f{seed}"), game_seed(k)) for k in range(2 * rounds))
                pairs[p] = _Pair(games=games, order=tuple(derive(seed, "order", r, a.name, b.name)
                                                          for r in range(rounds)))
                where.update((g[1], (p, k)) for k, g in enumerate(games))
                added_pairs.append(p)
        moved = set(specs) != set(before)
        if moved:  # the pairs' order changed: sorted again (the same key as Schedule's)
            group = groups(specs)
            ranks: list[Mapping[tuple[str, str], int]] = []
            for r in range(rounds):
                seq = sorted(pairs, key=lambda p: (block(group, *p), pairs[p].order[r], p))
                ranks.append(dict(zip(seq, range(len(seq)))))
            ranks_t: tuple[Mapping[tuple[str, str], int], ...] = tuple(ranks)
        else:  # the same pairs in the same places (some with new games)
            ranks_t = self.ranks
        schedule = attrs.evolve(s, bots=tuple(sorted(specs.values(), key=lambda b: b.name)))
        plan = Planned(schedule=schedule, pairs=pairs, ranks=ranks_t, where=where)
        added = plan.tasks(g[1] for p in added_pairs for g in pairs[p].games)
        return plan, Changes(added=tuple(added), removed=frozenset(removed), new=frozenset(new),
                             gone=frozenset(gone), moved=moved)

    def _change_tables(self, specs: Mapping[str, BotSpec], gone: set[str], new: list[str],
                       moved: bool) -> tuple[Planned, Changes]:
        """:meth:`change` of a table schedule: the new field's whole schedule (see the module's
        docstring for what a change keeps), and the difference by id."""
        schedule = attrs.evolve(self.schedule, bots=tuple(sorted(specs.values(), key=lambda b: b.name)))
        tables = {t.id: t for t in schedule}  # in play order
        n = len(specs)
        where = {gid: (tuple(sorted(b.name for b in t.players)), t.index // n) for gid, t in tables.items()}
        plan = Planned(schedule=schedule, pairs={}, ranks=self.ranks, where=where, tables=tables)
        added = tuple(t for gid, t in tables.items() if gid not in self.tables)
        return plan, Changes(added=added, removed=frozenset(self.tables.keys() - tables.keys()),
                             new=frozenset(new), gone=frozenset(gone), moved=moved)
