"""Table schedules (games of more than two seats): how long a design takes, and what a change of the
field costs the host (kothkit.playing.schedule, kothkit.playing.tables).

Run by hand from the repository root::

    python benchmarks/bench_tables.py
    python benchmarks/bench_tables.py --fields 40x6x5 200x10x10 --repeat 3

For each field ``BOTSxSEATSxROUNDS`` it prints:

- ``design``: :func:`kothkit.playing.tables.offsets` from an empty cache (ms, min / median / max
  over ``--repeat``), and the design's spread (most minus fewest meetings of two bots);
- ``schedule``: the whole schedule's tasks (ids and seeds) with the design cached;
- the churn of one change, as ``Planned.change`` works it out: a bot added, a bot dropped, a bot
  replaced (same name, new code): the games added and removed, out of the schedule's games.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from kothkit.bots.folders import BotSpec
from kothkit.limits import Limits
from kothkit.playing.schedule import Planned, Schedule
from kothkit.playing.tables import offsets, spread


def bots(n: int, version: str = "1") -> list[BotSpec]:
    return [BotSpec(name=f"b{i:03d}", path=Path("."), command=("x",), hash=f"b{i:03d}-{version}") for i in range(n)]


def ms(f) -> float:
    t = time.perf_counter()
    f()
    return (time.perf_counter() - t) * 1000


def line(label: str, times: list[float]) -> str:
    return f"  {label}: {min(times):.1f} / {statistics.median(times):.1f} / {max(times):.1f} ms"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--fields", nargs="*", default=["12x4x5", "40x6x5", "40x8x10", "100x8x5", "200x10x10"])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    for field in args.fields:
        n, k, rounds = (int(x) for x in field.split("x"))
        print(f"{n} bots, tables of {k}, {rounds} rounds:")

        def design() -> None:
            offsets.cache_clear()
            offsets(n, k, rounds)

        print(line("design", [ms(design) for _ in range(args.repeat)]) + f", spread {spread(n, offsets(n, k, rounds))}")
        s = Schedule(game="g", bots=tuple(bots(n)), seed=7, rounds=rounds, limits=Limits(), seats=k)
        print(line("schedule", [ms(lambda: list(s)) for _ in range(args.repeat)]) + f", {s.total} games")
        plan = Planned.of(s)
        field_now = bots(n)
        for what, after in (("a bot added", [*field_now, *bots(n + 1)[n:]]), ("a bot dropped", field_now[1:]),
                            ("a bot replaced", [*field_now[1:], bots(1, "2")[0]])):
            _, changes = plan.change(after)
            print(f"  {what}: {len(changes.added)} games added, {len(changes.removed)} removed, of {len(plan)}")


if __name__ == "__main__":
    main()
