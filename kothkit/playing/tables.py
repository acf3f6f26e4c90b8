"""Tables: which places of a field of B bots sit together in games of k seats (k > 2, or a range of seats).

A round is a *cyclic* design: with an offset set D = (d_0, ..., d_{k-1}) of k places out of
0..B-1, game i of the round seats places i + d_0, i + d_1, ... (mod B) in that seat order, for
i = 0..B-1.  So in every round each place plays exactly k games, once in each seat: the games
per bot are equal and no bot keeps a seat, by construction.  Two places p and q meet, per round,
once for each pair of offsets in D whose difference is +-(q - p) (mod B): how often a pair meets
depends only on the *class* of its distance, min(q - p, p - q) mod B, and balancing the pairs is
balancing R offset sets' difference classes over the B // 2 classes (:func:`offsets`).

When B <= k every game seats everyone (D is every place).  Which bot has which place is the
schedule's business (kothkit.playing.schedule: by the seed); this module is pure combinatorics,
and its designs depend on (B, k, R) alone, so they are computed once per process (a search of
milliseconds for a class's field, about half a second for 100 bots at tables of 8, a second or more
for 200 at tables of 10, 10 rounds: benchmarks/bench_tables.py).

Where pair counts within one are out of reach.  For 2 <= B <= 40, 3 <= k <= 8 and one or two
rounds, :func:`offsets` finds designs within one in 433 of the 468 cases; in the other 35
(``SPREAD_TWO`` in tests/core/test_schedule_tables.py) pairs differ by two.  Of those, 23 have no
cyclic design within one at all (checked by enumerating every offset set: 18 of the 19 cases of one
round, and (B, k) = (12, 3), (14, 3), (14, 5), (24, 4), (25, 4) for two rounds; the test re-checks
the quick ten); 3 have one that the search misses ((39, 7) for one round, (26, 4) and (21, 6) for
two); 9 (two rounds, 29 bots or more, tables of 5 or more) were too many to enumerate.  Where the
mean meetings of a pair, rounds * k * (k - 1) / (B - 1), is a whole number, within one means every
pair meets exactly as often (a balanced design, which few B and k have): 7 of the 35 are such.  A
design outside cyclic ones (another group, or none) could do better in some: within one is then
not promised.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence

#: Moves tried per restart of the offsets' search, per difference class (the search stops as soon as
#: the pair counts are within one of each other).
MOVES = 200
#: Restarts of the search (each from its own random start) before the best design found is taken.
RESTARTS = 4


def _class(d: int, places: int) -> int:
    d %= places
    return min(d, places - d)


def pair_counts(places: int, design: Sequence[Sequence[int]]) -> list[int]:
    """How often a pair of places at distance class c (1..places // 2) meets over the rounds of
    ``design`` (index c; index 0 unused)."""
    half = places // 2
    c = [0] * (half + 1)
    for d in design:
        for i, a in enumerate(d):
            for b in d[i + 1:]:
                q = _class(b - a, places)
                # Places at distance B/2 (B even) meet through both a -> b and b -> a.
                c[q] += 2 if 2 * q == places else 1
    return c


def spread(places: int, design: Sequence[Sequence[int]]) -> int:
    """Most minus fewest meetings of two places over ``design``."""
    if places < 2:
        return 0
    c = pair_counts(places, design)[1:]
    return max(c) - min(c)


@functools.lru_cache(maxsize=256)
def offsets(places: int, seats: int, rounds: int) -> tuple[tuple[int, ...], ...]:
    """Each round's offsets (sorted, from 0 up): ``rounds`` sets of ``seats`` places out of ``places``
    whose difference classes are as even as a seeded local search finds.

    The search (deterministic: its random numbers are seeded by the arguments) minimizes the sum
    over pairs of places of their meetings squared, moving one offset of one round at a time and
    taking every move that does not make it worse; it stops when the pair counts are within one, or
    after ``MOVES`` moves per class, restarting up to ``RESTARTS`` times.  With ``seats >= places``
    every round is every place.
    """
    if seats >= places:
        return tuple(tuple(range(places)) for _ in range(rounds))
    half = places // 2
    inc = [0] + [1] * half
    weight = [0] + [2] * half  # pairs in a class, over B/2
    if places % 2 == 0:
        inc[half], weight[half] = 2, 1
    best: tuple[tuple[int, int], list[list[int]]] | None = None
    rng = random.Random(f"kothkit tables {places} {seats} {rounds}")
    for _restart in range(RESTARTS):
        sets = [sorted(rng.sample(range(places), seats)) for _ in range(rounds)]
        c = pair_counts(places, sets)
        for _move in range(MOVES * half):
            if max(c[1:]) - min(c[1:]) <= 1:
                break
            d = sets[rng.randrange(rounds)]
            at = rng.randrange(seats)
            a, b = d[at], rng.randrange(places)
            if b in d:
                continue
            change: dict[int, int] = {}
            for x in d:
                if x != a:
                    q = _class(x - a, places)
                    change[q] = change.get(q, 0) - inc[q]
                    q = _class(x - b, places)
                    change[q] = change.get(q, 0) + inc[q]
            if sum(weight[q] * ((c[q] + n) ** 2 - c[q] ** 2) for q, n in change.items()) <= 0:
                for q, n in change.items():
                    c[q] += n
                d[at] = b
        score = (max(c[1:]) - min(c[1:]), sum(w * x * x for w, x in zip(weight, c)))
        if best is None or score < best[0]:
            best = (score, sets)
        if score[0] <= 1:
            break
    assert best is not None
    # Translated so that each round's offsets start at 0 (the same design: only the games' order moves).
    return tuple(tuple(sorted((x - min(d)) for x in d)) for d in best[1])
