"""Games per second on a local Dask cluster of 2 workers (``--cluster local:2``) against ``--jobs 2``.

Run by hand from the repository root (needs ``pip install -e '.[cluster]'``)::

    python benchmarks/bench_cluster.py                 # both workloads, 3 runs each
    python benchmarks/bench_cluster.py --repeat 5

Workloads, each a whole tournament through ``kothkit.playing.tournament.run_tournament`` (referee,
limits, containment, journal), ``--repeat`` runs, the two ways alternating:

1. connect4_hidden, the seed's four example bots, isolated (function bots in hosts);
2. gomoku_swap2 between copies of ``benchmarks/bots/instant`` (a C bot that answers at once):
   program bots, jailed, a game of a few milliseconds.

Each cluster run gets a fresh ``local:2`` (its start is not timed: a cluster is started once per
tournament), as each ``--jobs 2`` run gets a fresh process pool: neither starts with warm bot
hosts, and no idle cluster loads the machine while ``--jobs 2`` plays.

Printed for each workload: games/s each way and each run's ratio (the issue's target: the
cluster at least 90% of ``--jobs 2``); then what batches cost in the cluster's tournaments: how
many, the workers' busy share (from Dask's task stream: the time they spent playing batches), and
the per-batch overhead, the time a worker spent not playing, per batch.  Last, the round trip of
an empty batch (client -> scheduler -> worker -> back) through a cluster and through the local
process pool, and a cluster's startup time.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
C4_BOTS = ROOT / "plugins" / "connect4_hidden" / "bots"
C4_EXAMPLES = ("random_player", "constant_player", "better_random_player", "better_constant_player")
INSTANT = ROOT / "benchmarks" / "bots" / "instant"
WORKERS = 2


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


def rate(info, bots, rounds: int, tmp: Path, tag: str, pool=None) -> tuple[float, int, dict]:
    """Games/s of one tournament, its number of games, and (on a cluster) what its batches cost."""
    from kothkit.playing.tournament import run_tournament

    stream = None
    if pool is not None:
        from distributed import get_task_stream

        stream = get_task_stream(client=pool.pool.client)
        stream.__enter__()
    t = time.perf_counter()
    start = time.time()
    try:
        res = run_tournament(info, bots, seed=7, journal=tmp / f"{tag}-{time.monotonic_ns()}.sqlite", jobs=WORKERS,
                             rounds=rounds, cluster=pool)
    finally:
        took = time.perf_counter() - t
        if stream is not None:
            stream.__exit__(None, None, None)
    costs = {}
    if stream is not None:
        busy = batches = 0
        for r in stream.data:
            if str(r["key"]).startswith("kothkit-play_sent"):
                batches += 1
                busy += sum(s["stop"] - max(s["start"], start) for s in r["startstops"] if s["action"] == "compute")
        costs = {"batches": batches, "busy": busy / (took * WORKERS),
                 "overhead": (took * WORKERS - busy) / max(1, batches)}
    return res.played / took, res.played, costs


def empty_batches(executor, n: int) -> float:
    """Seconds per empty batch sent and answered, one at a time, on ``executor`` (kothkit.playing.executor)."""
    executor.play([], True).result()  # warm up (imports on the worker)
    t = time.perf_counter()
    for _ in range(n):
        executor.play([], True).result()
    return (time.perf_counter() - t) / n


def span(values, fmt="{:,.0f}") -> str:
    lo, hi = min(values), max(values)
    return fmt.format(lo) if fmt.format(lo) == fmt.format(hi) else f"{fmt.format(lo)}-{fmt.format(hi)}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--c4-rounds", type=int, default=300)
    ap.add_argument("--swap2-rounds", type=int, default=30)
    args = ap.parse_args()

    from kothkit.bots.folders import load_bots
    from kothkit.playing.cluster import connect
    from kothkit.playing.executor import LocalExecutor
    from kothkit.playing.tournament import run_tournament
    from kothkit.plugins import get_game

    starts = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        c4 = get_game("connect4_hidden")
        swap2 = get_game("gomoku_swap2")
        work = [("connect4 isolated", c4, load_bots([C4_BOTS / n for n in C4_EXAMPLES]).bots, args.c4_rounds),
                ("swap2 instant", swap2, instant_bots(tmp, 4), args.swap2_rounds)]
        for name, info, bots, rounds in work:
            # Warm up: what the judge imports once (the ratings' scipy, a game's code) is not timed.
            run_tournament(info, bots, seed=1, journal=tmp / "warm.sqlite", rounds=1)
            jobs, cluster, ratios, costs = [], [], [], []
            games = 0
            for _ in range(args.repeat):
                r, games, _ = rate(info, bots, rounds, tmp, "jobs")
                jobs.append(r)
                t = time.perf_counter()
                pool = connect(f"local:{WORKERS}", info, bots)
                starts.append(time.perf_counter() - t)
                try:
                    r, games, cost = rate(info, bots, rounds, tmp, "cluster", pool)
                finally:
                    pool.close()
                cluster.append(r)
                costs.append(cost)
                ratios.append(cluster[-1] / jobs[-1])
            print(f"{name}: {games} games; --jobs {WORKERS} {span(jobs)} games/s, --cluster local:{WORKERS} "
                  f"{span(cluster)} games/s; ratio by run {', '.join(f'{x:.2f}' for x in ratios)} "
                  f"(median {statistics.median(ratios):.2f}, best against best {max(cluster) / max(jobs):.2f})")
            print(f"  cluster batches: {span([c['batches'] for c in costs])} a tournament, workers busy "
                  f"{span([100 * c['busy'] for c in costs], '{:.0f}')}% of the time, per-batch overhead "
                  f"{span([1e3 * c['overhead'] for c in costs], '{:.1f}')} ms of a worker's time")
        pool = connect(f"local:{WORKERS}", work[0][1], work[0][2])
        try:
            cluster_batch = empty_batches(pool, 200)
        finally:
            pool.close()
        with LocalExecutor(WORKERS, pin_cpu=False) as local:
            local_batch = empty_batches(local, 200)
        print(f"an empty batch's round trip: cluster {cluster_batch * 1e3:.2f} ms, local process pool "
              f"{local_batch * 1e3:.2f} ms; local:{WORKERS} started in {span(starts, '{:.1f}')} s")


if __name__ == "__main__":
    main()
