"""Games per second on a local Dask cluster of 2 workers (``--cluster local:2``) against ``--jobs 2``.

Run by hand from the repository root (needs ``pip install -e '.[cluster]'``)::

    python benchmarks/bench_cluster.py                 # both workloads, 3 runs each
    python benchmarks/bench_cluster.py --repeat 5

Workloads, each a whole tournament through ``kothkit.playing.tournament.run_tournament`` (referee,
limits, containment, journal), best of ``--repeat`` runs, the two ways alternating:

1. connect4_hidden, the seed's four example bots, isolated (function bots in hosts);
2. gomoku_swap2 between copies of ``benchmarks/bots/instant`` (a C bot that answers at once):
   program bots, jailed, a game of a few milliseconds.

Printed: games/s each way and their ratio (the issue's target: the cluster at least 90% of
``--jobs 2``), then the per-batch overhead: the round trip of an empty batch through the
cluster (client -> scheduler -> worker -> back) and through the local process pool, and the
cluster's startup time (not counted in games/s: a cluster is started once per tournament).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
C4_BOTS = ROOT / "plugins" / "connect4_hidden" / "bots"
C4_EXAMPLES = ("random_player", "constant_player", "better_random_player", "better_constant_player")
INSTANT = ROOT / "benchmarks" / "bots" / "instant"


def instant_bots(folder: Path, n: int):
    from kothkit.bots.folders import load_bots
    from kothkit.playing.tournament import build_bots

    for i in range(n):
        dst = folder / f"instant{i}"
        shutil.copytree(INSTANT, dst, ignore=shutil.ignore_patterns(".kothkit-build", "bot"))
        toml = (dst / "bot.toml").read_text().replace('name = "instant"', f'name = "instant{i}"')
        (dst / "bot.toml").write_text(toml)
    bots, errors = build_bots(load_bots([folder / f"instant{i}" for i in range(n)]).bots)
    if errors:
        sys.exit(f"build failed: {errors}")
    return bots


def rate(info, bots, rounds: int, tmp: Path, tag: str, pool=None) -> tuple[float, int]:
    from kothkit.playing.tournament import run_tournament

    t = time.perf_counter()
    res = run_tournament(info, bots, seed=7, journal=tmp / f"{tag}-{time.monotonic_ns()}.sqlite", jobs=2,
                         rounds=rounds, cluster=pool)
    took = time.perf_counter() - t
    return res.played / took, res.played


def empty_batches(pool, n: int) -> float:
    """Seconds per empty batch sent and answered, one at a time."""
    from kothkit.playing.tournament import play_batch

    pool.submit(play_batch, [], rows=True).result()  # warm up (imports on the worker)
    t = time.perf_counter()
    for _ in range(n):
        pool.submit(play_batch, [], rows=True).result()
    return (time.perf_counter() - t) / n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--c4-rounds", type=int, default=300)
    ap.add_argument("--swap2-rounds", type=int, default=30)
    args = ap.parse_args()

    from kothkit.bots.folders import load_bots
    from kothkit.playing.cluster import connect
    from kothkit.plugins import get_game
    from kothkit.playing.tournament import make_pool

    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        c4 = get_game("connect4_hidden")
        swap2 = get_game("gomoku_swap2")
        work = [("connect4 isolated", c4, load_bots([C4_BOTS / n for n in C4_EXAMPLES]).bots, args.c4_rounds),
                ("swap2 instant", swap2, instant_bots(tmp, 4), args.swap2_rounds)]
        t = time.perf_counter()
        pool = connect("local:2", c4, work[0][2])
        started = time.perf_counter() - t
        try:
            for name, info, bots, rounds in work:
                pool.check(info, bots, __import__("kothkit.plugins").plugins.game_code(info))
                best = {"jobs": 0.0, "cluster": 0.0}
                games = 0
                for _ in range(args.repeat):
                    r, games = rate(info, bots, rounds, tmp, "jobs")
                    best["jobs"] = max(best["jobs"], r)
                    r, games = rate(info, bots, rounds, tmp, "cluster", pool)
                    best["cluster"] = max(best["cluster"], r)
                print(f"{name}: {games} games; --jobs 2 {best['jobs']:,.0f} games/s, --cluster local:2 "
                      f"{best['cluster']:,.0f} games/s: ratio {best['cluster'] / best['jobs']:.2f}")
            cluster_batch = empty_batches(pool, 200)
        finally:
            pool.close()
        local = make_pool(2, None)
        try:
            local_batch = empty_batches(local, 200)
        finally:
            local.shutdown()
        print(f"per-batch overhead (an empty batch's round trip): cluster {cluster_batch * 1e3:.2f} ms, "
              f"local process pool {local_batch * 1e3:.2f} ms; local:2 started in {started:.1f} s")


if __name__ == "__main__":
    main()
