"""Seeds: every random choice of a tournament derives from its one seed, by name.

Seeds are derived by hashing the tournament seed with a label (a pair of bot
names, a game index, a seat), never by drawing from a shared generator, so a
game's seed depends only on its slot: adding a bot, changing ``--jobs`` or
resuming does not shift anyone else's seeds.
"""

from __future__ import annotations

import hashlib
import secrets

SEED_BITS = 31  # bots get seeds that fit every language's int (KaitoBot parses with parseInt)


def derive(seed: int, *labels: object) -> int:
    """A seed in [0, 2**31) derived from ``seed`` and ``labels``."""
    text = "\x1f".join([str(seed), *map(str, labels)]).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") % (1 << SEED_BITS)


def fresh_seed() -> int:
    return secrets.randbelow(1 << SEED_BITS)
