"""connect4_hidden speed (and, with --full, score agreement) against the seed's own controller.

Run by hand from the repository root::

    python benchmarks/bench_connect4.py            # speed: seed vs kothkit, same process run
    python benchmarks/bench_connect4.py --full     # also the 10,000-round score comparison

All figures come from this one run, on the seed's four example bots
(random_player, constant_player, better_random_player, better_constant_player):

1. games/s of the seed's controller (tests/connect4_hidden/seed_controller.py,
   the seed's code with its indentation restored) against kothkit's
   Connect4Match driven in this process by FunctionBots with a bare loop (no
   referee, no clock, no records).  The two alternate in short slices, and the
   best slice of each counts, so that other load on the machine hurts both
   alike.  Our loop reseeds each random bot's generator before every game (the
   seed's controller never does), which is part of the price of reproducibility.
2. the isolated worker protocol alone: call round trips per second through
   ``python -m kothkit.bots.funchost`` over pipes.
3. whole tournaments through ``kothkit.playing.tournament.run_tournament`` (referee,
   limits, journal): in-process (trusted, 5,000 rounds) and isolated (500
   rounds), at jobs 1 and 2, several runs of each, alternating; each with the
   cores the whole machine kept busy.  Beside them the machine's own scaling:
   one and two pinned processes playing the same games as a worker does (no
   judge, no dispatch, no journal) -- what two independent jobs get on this
   machine, the ceiling of jobs 2 over jobs 1.  (``--trusted-rounds 10000``
   plays the seed's own 10,000 rounds.)
4. --full: the seed's 10,000 rounds both ways, each bot's mean score side by
   side with the difference in standard errors.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests" / "connect4_hidden"


def _load(name: str, file: Path):
    spec = importlib.util.spec_from_file_location(name, file)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


seed_ctl = _load("c4_seed_controller", TESTS / "seed_controller.py")
inproc = _load("c4_inproc", TESTS / "inproc.py")


# In-process figures are per CPU second of this process (time.process_time), which
# other programs on the machine disturb far less than wall time.
def seed_rate(rounds: int) -> float:
    t = time.process_time()
    seed_ctl.run_tournament(seed_ctl.players, rounds=rounds)
    return rounds * 12 / (time.process_time() - t)


def our_rate(bots, rounds: int, seed: int) -> float:
    t = time.process_time()
    inproc.round_robin(bots, rounds, seed)
    return rounds * 12 / (time.process_time() - t)


def reseed_cost(bots, n: int = 20000) -> float:
    """CPU microseconds of one reseed of a bot's generator (FunctionBot.new_game of a random bot)."""
    rng = next(b for b in bots if b.uses_random).random
    t = time.process_time()
    for i in range(n):
        rng.reseed(i)
    return (time.process_time() - t) / n * 1e6


def bench_inprocess(rounds: int, repeat: int) -> tuple[float, float]:
    bots = [inproc.bundled(n) for n in inproc.EXAMPLES]
    random.seed(1)
    seed_rate(max(1, rounds // 10))  # warm-up
    our_rate(bots, max(1, rounds // 10), 0)
    seeds, ours = [], []
    for i in range(repeat):
        seeds.append(seed_rate(rounds))
        ours.append(our_rate(bots, rounds, i + 1))
    print(f"1. in-process, {repeat} alternating slices of {rounds} rounds ({rounds * 12} games) each, per CPU second")
    print(f"   seed controller            best {max(seeds):10,.0f} games/s   median {statistics.median(seeds):10,.0f}")
    print(f"   kothkit Match+FunctionBot  best {max(ours):10,.0f} games/s   median {statistics.median(ours):10,.0f}")
    print(f"   ratio (best/best) {max(ours) / max(seeds):.2f}x   (median/median) "
          f"{statistics.median(ours) / statistics.median(seeds):.2f}x   goal >= 3x")
    # Random bots play 6 of the 12 games of a round each: one reseed per game on average.
    per_game = 1e6 / max(ours)
    cost = reseed_cost(bots)
    print(f"   of kothkit's {per_game:.1f} us per game, reseeding the random bots' generators takes {cost:.1f} us "
          f"({cost / per_game:.0%}); the seed's controller never reseeds")
    return max(seeds), max(ours)


def bench_funchost(calls: int) -> None:
    entry = f"{inproc.BOTS / 'better_constant_player' / 'bot.py'}:better_constant_player"
    p = subprocess.Popen([sys.executable, "-m", "kothkit.bots.funchost", entry], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, cwd=ROOT)
    try:
        view = [[0] * 7 for _ in range(6)]
        line = json.dumps({"op": "call", "args": [view, 0]}, separators=(",", ":")).encode() + b"\n"
        p.stdin.write(b'{"op":"new","seed":1}\n')
        p.stdin.flush()
        p.stdout.readline()
        t = time.perf_counter()
        for _ in range(calls):
            p.stdin.write(line)
            p.stdin.flush()
            p.stdout.readline()
        rate = calls / (time.perf_counter() - t)
    finally:
        p.stdin.close()
        p.wait(timeout=10)
    print(f"2. isolated worker protocol: {rate:,.0f} call round trips/s over pipes (one request in flight)")


def busy_jiffies() -> int:
    """CPU time (clock ticks) the whole machine spent not idle so far, from /proc/stat.

    Machine-wide, because the isolated bots' hosts are grandchildren of the
    workers, which our own resource usage would not count.
    """
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    return sum(fields) - fields[3] - fields[4]  # minus idle and iowait


def _free_play(tasks, cpu: int, out) -> None:
    """A process of the machine baseline: play ``tasks`` as a pinned worker does, nothing else."""
    import kothkit.playing.executor as executor

    os.sched_setaffinity(0, {cpu})
    executor._HOSTS = None  # this process's own function hosts
    t = time.perf_counter()
    for i in range(0, len(tasks), 1000):
        executor.play_batch(tasks[i : i + 1000], cpu=cpu, rows=True)
    out.put(time.perf_counter() - t)
    executor.close_hosts()


def free_rate(tasks, procs: int) -> float:
    """games/s of ``procs`` processes, each playing ``tasks`` on a core of its own at the same
    time: no judge, no journal, no dispatch.  procs 2 over procs 1 is what this machine
    gives two independent jobs, the ceiling of --jobs 2 over --jobs 1."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    out = ctx.Queue()
    cores = sorted(os.sched_getaffinity(0))
    ps = [ctx.Process(target=_free_play, args=(tasks, cores[i], out)) for i in range(procs)]
    for p in ps:
        p.start()
    times = [out.get(timeout=600) for _ in ps]
    for p in ps:
        p.join(timeout=60)
    return procs * len(tasks) / max(times)


def bench_tournaments(trusted_rounds: int, isolated_rounds: int, repeat: int, seed_best: float) -> None:
    try:
        from kothkit.bots.folders import load_bots
        from kothkit.playing.schedule import Schedule
        from kothkit.playing.tournament import run_tournament
        from kothkit.plugins import get_game
    except ImportError as e:  # the core's tournament is not there
        print(f"3. tournaments: skipped ({e})")
        return
    info = get_game("connect4_hidden")
    bots = load_bots([inproc.BOTS / n for n in inproc.EXAMPLES]).bots
    two = len(os.sched_getaffinity(0)) >= 2
    print(f"3. kothkit.playing.tournament.run_tournament, referee and journal included: {trusted_rounds:,} rounds "
          f"({trusted_rounds * 12:,} games) in-process, {isolated_rounds:,} isolated; {repeat} runs of each, "
          f"alternating")
    # Runs alternate (jobs 1, jobs 2, the baseline's one and two processes), so that the
    # machine's moods (this is a shared VM: the same run varies by 30%) fall on all alike.
    rates: dict[tuple, list[float]] = {}
    busy: dict[tuple, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for trusted in (True, False):
            rounds = trusted_rounds if trusted else isolated_rounds
            tasks = list(Schedule(game=info.name, bots=tuple(bots), seed=1, rounds=max(1, rounds // 5),
                                  limits=info.limits, rules=dict(info.rules), trusted=trusted))
            for r in range(repeat):
                for kind, n in [("jobs", 1), ("free", 1)] + ([("jobs", 2), ("free", 2)] if two else []):
                    b, t = busy_jiffies(), time.perf_counter()
                    if kind == "jobs":
                        res = run_tournament(info, bots, seed=1 + r, journal=Path(tmp) / f"{trusted}{n}{r}.sqlite",
                                             jobs=n, rounds=rounds, trusted=trusted)
                        rate = res.played / (time.perf_counter() - t)
                    else:
                        rate = free_rate(tasks, n)
                    rates.setdefault((trusted, kind, n), []).append(rate)
                    busy.setdefault((trusted, kind, n), []).append(
                        (busy_jiffies() - b) / os.sysconf("SC_CLK_TCK") / (time.perf_counter() - t))
    for trusted in (True, False):
        mode = "in-process (--trusted)" if trusted else "isolated"
        for n in (1, 2) if two else (1,):
            got = rates[trusted, "jobs", n]
            print(f"   {mode:22} jobs {n}: best {max(got):8,.0f}  median {statistics.median(got):8,.0f} games/s   "
                  f"{max(got) / seed_best:5.2f}x the seed controller   "
                  f"{statistics.median(busy[trusted, 'jobs', n]):4.2f} cores busy")
        if not two:
            continue
        ours = [max(rates[trusted, "jobs", 2]) / max(rates[trusted, "jobs", 1]),
                statistics.median(rates[trusted, "jobs", 2]) / statistics.median(rates[trusted, "jobs", 1])]
        free = [max(rates[trusted, "free", 2]) / max(rates[trusted, "free", 1]),
                statistics.median(rates[trusted, "free", 2]) / statistics.median(rates[trusted, "free", 1])]
        print(f"   {'':22} jobs 2 / jobs 1: {ours[0]:.2f}x best/best, {ours[1]:.2f}x median/median;  "
              f"baseline, two free players / one: {free[0]:.2f}x, {free[1]:.2f}x;  "
              f"kothkit gets {ours[0] / free[0]:.0%} / {ours[1] / free[1]:.0%} of the machine's scaling")
    print("   goals: isolated >= 1,000 games/s; jobs 2 close to 2x jobs 1")
    print("   (baseline: pinned processes playing the same games as a worker plays them, without judge,")
    print("    dispatch or journal; cores busy: the whole machine's CPU time over the run's wall time)")


def compare_scores(rounds: int) -> None:
    print(f"4. score comparison over {rounds:,} rounds ({rounds * 6:,} games per bot)")
    random.seed(2024)
    t = time.perf_counter()
    theirs = seed_ctl.run_tournament(seed_ctl.players, rounds=rounds)
    t_seed = time.perf_counter() - t
    t = time.perf_counter()
    ours = inproc.round_robin([inproc.bundled(n) for n in inproc.EXAMPLES], rounds, seed=2024)
    t_ours = time.perf_counter() - t
    print(f"   (seed controller {t_seed:.1f} s, kothkit {t_ours:.1f} s)")
    print(f"   {'bot':24} {'seed':>8} {'kothkit':>8} {'diff':>8} {'z':>6}")
    for name, a, b in zip(inproc.EXAMPLES, theirs, ours):
        ma, mb = seed_ctl.get_score(a), inproc.score(b)
        n = sum(a)
        va = (a[2] + a[1]) / n - ma * ma
        vb = (b[2] + b[1]) / n - mb * mb
        se = math.sqrt(va / n + vb / n)
        print(f"   {name:24} {ma:+8.4f} {mb:+8.4f} {mb - ma:+8.4f} {(mb - ma) / se:+6.2f}")
    print("   |z| < 3 for every bot: the scores agree within statistical error")
    print()
    print("   the seed's table, kothkit's games:")
    for line in seed_ctl.table(seed_ctl.players, ours).splitlines():
        print("   " + line)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=200, help="rounds per in-process slice (12 games each)")
    ap.add_argument("--repeat", type=int, default=7, help="alternating slices of each")
    # Whole tournaments: the seed's own 10,000 rounds in-process (a run's start and its final
    # checkpoint, about 0.15 s, weigh on short runs); fewer isolated, at about 1,500 games/s.
    ap.add_argument("--trusted-rounds", type=int, default=5000, help="rounds per in-process tournament")
    ap.add_argument("--isolated-rounds", type=int, default=500, help="rounds per isolated tournament")
    ap.add_argument("--tournament-repeat", type=int, default=3, help="runs of each tournament")
    ap.add_argument("--calls", type=int, default=20000, help="worker round trips to time")
    ap.add_argument("--full", action="store_true", help="also compare scores over --full-rounds rounds")
    ap.add_argument("--full-rounds", type=int, default=10000)
    ap.add_argument("--no-tournament", action="store_true")
    args = ap.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    seed_best, _ = bench_inprocess(args.rounds, args.repeat)
    bench_funchost(args.calls)
    if not args.no_tournament:
        bench_tournaments(args.trusted_rounds, args.isolated_rounds, args.tournament_repeat, seed_best)
    if args.full:
        compare_scores(args.full_rounds)


if __name__ == "__main__":
    main()
