"""Seeds: every random choice of a tournament derives from its one seed, by name.

Seeds are derived by hashing the tournament seed with a label (a pair of bot
names, a game index, a seat), never by drawing from a shared generator, so a
game's seed depends only on its slot: adding a bot, changing ``--jobs`` or
resuming does not shift anyone else's seeds.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable

SEED_BITS = 31  # bots get seeds that fit every language's int (KaitoBot parses with parseInt)


_MASK = (1 << SEED_BITS) - 1
_sha256 = hashlib.sha256
_from_bytes = int.from_bytes


def derive(seed: int, *labels: object) -> int:
    """A seed in [0, 2**31) derived from ``seed`` and ``labels``."""
    text = "\x1f".join([str(seed), *map(str, labels)]).encode()
    return _from_bytes(_sha256(text).digest()[:8], "big") & _MASK


def bot_seed(game_seed: int, seat: int) -> int:
    """``derive(game_seed, "bot", seat)``, the seed of the bot in ``seat`` of a game, in one step
    (once a seat and game: tens of thousands a second of games of function bots)."""
    if type(game_seed) is int and type(seat) is int:  # %d writes an int as str() does
        return _from_bytes(_sha256(b"%d\x1fbot\x1f%d" % (game_seed, seat)).digest()[:8], "big") & _MASK
    return derive(game_seed, "bot", seat)


def deriver(seed: int, *labels: object) -> Callable[[object], int]:
    """``f(last) == derive(seed, *labels, last)``, with the shared part hashed once.

    Schedules derive one seed per game from a per-pair prefix: copying a
    hash state is cheaper than hashing the whole label again.
    """
    base = _sha256("\x1f".join([str(seed), *map(str, labels), ""]).encode())

    def f(last: object) -> int:
        h = base.copy()
        h.update(str(last).encode())
        return _from_bytes(h.digest()[:8], "big") & _MASK

    return f


def fresh_seed() -> int:
    return secrets.randbelow(1 << SEED_BITS)
