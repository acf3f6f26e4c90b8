"""The host's openskill ratings of a table challenge (kothkit.store.ratings): what a Scoreboard change
costs when the ratings are worked out again from every counted game (``rate_tables``, as the host
did) and when they are kept game by game (``TableRater``, as it does now), in the same run.

Run by hand from the repository root::

    python benchmarks/bench_ratings.py
    python benchmarks/bench_ratings.py --tables 2000 --seats 10 --bots 100 --repeat 5

It rates ``--tables`` tables, then, for each kind of change, times (ms, min / median / max over
``--repeat``) a full recompute of every table and the kept ratings' update, and prints their ratio:

- ``append``: one more game after the others (the usual case: the schedule's next game);
- ``out of order``: a game that comes before the last 20 rated (games finishing out of order at
  ``--jobs`` > 1): rated again from the last state kept before it.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import NamedTuple

from kothkit.store.ratings import TableRater, rate_tables


class Table(NamedTuple):
    players: tuple[str, ...]
    winner: str | None
    seat_places: tuple[int, ...]
    seat_points: tuple[float, ...] | None = None


def tables(n: int, seats: int, bots: int, seed: int = 1) -> list[tuple[tuple[int, str], Table]]:
    rng = random.Random(seed)
    names = [f"b{i:03d}" for i in range(bots)]
    out = []
    for i in range(n):
        players = tuple(rng.sample(names, seats))
        out.append(((i, f"g{i:05d}"), Table(players, None, tuple(rng.randint(1, seats) for _ in players))))
    return out


def ms(f) -> float:
    t = time.perf_counter()
    f()
    return (time.perf_counter() - t) * 1000


def line(label: str, times: list[float]) -> str:
    return f"{label}: {min(times):.2f} / {statistics.median(times):.2f} / {max(times):.2f} ms"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", type=int, default=2000)
    ap.add_argument("--seats", type=int, default=10)
    ap.add_argument("--bots", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    games = tables(args.tables + 1, args.seats, args.bots)
    print(f"{args.tables} tables of {args.seats}, {args.bots} bots:")
    for label, before, after in (
            ("append", games[:-1], games),
            ("out of order", games[:-21] + games[-20:], games)):
        full, kept = [], []
        for _ in range(args.repeat):
            full.append(ms(lambda: rate_tables(t for _, t in sorted(after))))
            rater = TableRater()
            rater.update(before)
            kept.append(ms(lambda: rater.update(after)))
            assert rater.update(after) == rate_tables(t for _, t in sorted(after))
        ratio = statistics.median(full) / statistics.median(kept)
        print(f"  {label}: full {line('', full)[2:]}; kept {line('', kept)[2:]}; ratio {ratio:.0f}x")


if __name__ == "__main__":
    main()
