"""The round-robin schedule, generated lazily and derived from the tournament seed.

Every pair of bots plays ``2 * rounds`` games; the opener (seat 0) of the
pair's first game is drawn from the seed, and openers alternate after that.
Each game's seed and its place in the order come from its slot (the pair's
names and the game's number), so the schedule of a pair never depends on
which other bots take part.  A game's id adds the game, its settings and both
bots' content hashes: a changed bot changes exactly its own games' ids.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterator, Mapping
from typing import Any

import attrs

from kothkit.bots import BotSpec
from kothkit.limits import Limits
from kothkit.records import GameTask
from kothkit.seeding import derive


def game_key(game: str, settings: Mapping[str, Any]) -> str:
    """The part of every game id that a whole schedule shares (computed once per schedule)."""
    return hashlib.sha256(json.dumps([game, settings], sort_keys=True, default=str).encode()).hexdigest()


def game_id(game: str, settings: Mapping[str, Any], players: tuple[BotSpec, ...], slot: tuple,
            key: str | None = None) -> str:
    key = key or game_key(game, settings)
    seats = "\x1e".join(f"{b.name}\x1f{b.hash}" for b in players)
    blob = f"{key}\x1d{seats}\x1d" + "\x1f".join(map(str, slot))
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def settings_of(limits: Limits, rules: Mapping[str, Any]) -> dict:
    """The settings that make up a game's identity (limits that can change a result, and rules)."""
    return {"limits": attrs.asdict(limits), "rules": dict(sorted(rules.items()))}


@attrs.frozen
class Schedule:
    game: str
    bots: tuple[BotSpec, ...]
    seed: int
    rounds: int
    limits: Limits
    rules: Mapping[str, Any] = attrs.field(factory=dict)
    trusted: bool = False

    @property
    def total(self) -> int:
        n = len(self.bots)
        return n * (n - 1) // 2 * 2 * self.rounds

    def pairs(self) -> list[tuple[BotSpec, BotSpec]]:
        ordered = sorted(self.bots, key=lambda b: b.name)
        return list(itertools.combinations(ordered, 2))

    def __iter__(self) -> Iterator[GameTask]:
        """Tasks in play order: round by round, pairs in a seeded order within a round."""
        settings = settings_of(self.limits, self.rules)
        key = game_key(self.game, settings)
        pairs = self.pairs()
        index = 0
        for r in range(self.rounds):
            order = sorted(pairs, key=lambda p: derive(self.seed, "order", r, p[0].name, p[1].name))
            for a, b in order:
                first, second = (a, b) if derive(self.seed, "opener", a.name, b.name) % 2 == 0 else (b, a)
                for k in (2 * r, 2 * r + 1):
                    seats = (first, second) if k % 2 == 0 else (second, first)
                    slot = (a.name, b.name, k)
                    yield GameTask(
                        id=game_id(self.game, settings, seats, (*slot, self.seed), key),
                        game=self.game, players=seats, seed=derive(self.seed, "game", *slot),
                        limits=self.limits, rules=dict(self.rules), index=index, trusted=self.trusted,
                    )
                    index += 1
