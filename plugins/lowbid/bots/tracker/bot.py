"""tracker: a Python function bot for lowbid that counts how often the others bid each number.

kothkit calls ``play(round, rounds, max_bid, seat, last_bids, state)`` and uses the first of the two
values returned; the second comes back as ``state`` next round (None at the start of a game).
``random`` is seeded by kothkit, so games replay exactly.
"""

import random


def play(round, rounds, max_bid, seat, last_bids, state):
    counts = state or {}
    if round > 1:
        for s, bid in enumerate(last_bids):
            if s != seat and bid:
                counts[bid] = counts.get(bid, 0) + 1
    seen = max(1, round - 1)
    # The lowest numbers the others took, on average, less than half a time a round; one of the
    # first two such at random.
    quiet = [b for b in range(1, max_bid + 1) if counts.get(b, 0) / seen < 0.5][:2]
    return random.choice(quiet or [random.randint(1, max_bid)]), counts
