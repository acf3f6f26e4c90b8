"""The round-robin schedule, generated lazily and derived from the tournament seed.

Every pair of bots plays ``2 * rounds`` games; the opener (seat 0) of the
pair's first game is drawn from the seed, and openers alternate after that.
Within a round, pairs come in a seeded order (by blocks of :data:`BLOCK` bots
when there are more).
Each game's seed and its place in the order come from its slot (the pair's
names and the game's number), so the schedule of a pair never depends on
which other bots take part.  A game's id adds the game, its settings (with the
code that decides its outcomes: its plugin's version and a hash of its
outcome modules, see :func:`kothkit.plugins.game_code`) and both
bots' content hashes: a changed bot changes exactly its own games' ids, a
changed game all of its own.
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
from kothkit.playing.seeding import derive, deriver
from kothkit.store.records import GameTask

#: Bots per group: with more bots than this, a round plays the pairs of two groups (a block of
#: the pairing table) before the next block, in a snake over the table, so that an isolated
#: function bot's host, kept by each worker in a bounded pool (kothkit.playing.referee.HostPool), serves
#: many games before it is evicted.  Fixed, not tied to the pool's size: the order decides what
#: a stateful bot sees, so it must be the same on every machine.
BLOCK = 16


#: The bots of a game in seat order.
Seats = tuple[BotSpec, BotSpec]


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
    rounds: int
    limits: Limits
    rules: Mapping[str, Any] = attrs.field(factory=dict)
    #: Function bots are called in the referee's own process (see GameTask).
    functions_in_process: bool = False
    #: The game's code identity (see :func:`settings_of`), part of every id.
    code: Mapping[str, Any] | None = None

    @property
    def total(self) -> int:
        n = len(self.bots)
        return n * (n - 1) // 2 * 2 * self.rounds

    def pairs(self) -> list[tuple[BotSpec, BotSpec]]:
        ordered = sorted(self.bots, key=lambda b: b.name)
        return list(itertools.combinations(ordered, 2))

    def __iter__(self) -> Iterator[GameTask]:
        """Tasks in play order: round by round, pairs in a seeded order within a round."""
        seed, rules, make = self.seed, dict(self.rules), GameTask
        game, limits, in_process = self.game, self.limits, self.functions_in_process
        for index, (k, seats, game_id_of, game_seed) in enumerate(self._slots()):
            yield make(id=game_id_of(f"{k}\x1f{seed}"), game=game, players=seats, seed=game_seed(k), limits=limits,
                       rules=rules, index=index, functions_in_process=in_process)

    def ids(self) -> Iterator[str]:
        """The games' ids, in play order (what ``iter`` gives, without building the tasks)."""
        seed = self.seed
        for k, _seats, game_id_of, _game_seed in self._slots():
            yield game_id_of(f"{k}\x1f{seed}")

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
