"""The whole `kothkit run` command as users time it, against the seed's own controller.

Run by hand from the repository root::

    python benchmarks/bench_command.py                 # 2,000 rounds, 3 runs of each
    python benchmarks/bench_command.py --rounds 500 --repeat 2

Everything is timed in this one run, as wall time of a subprocess, start-up included:

1. start-up: ``kothkit --version``, ``kothkit games``, ``kothkit run --help`` and a run of one round
   (``kothkit run connect4_hidden --rounds 1 --trusted --jobs 1 -q``, a fresh journal each);
   with ``--before REV`` (repeatable), the same commands of kothkit as it was at the git revision
   REV too, alternating with today's, and their ratios (both run as ``python -m kothkit``, the game
   plugins being the installed ones);
2. connect4_hidden on the seed's four example bots, ``--rounds`` rounds (12 games each):
   the seed's controller (tests/connect4_hidden/seed_controller.py, a faithful copy, run
   as ``python -c`` the way ``python3 controller.py`` runs: one process, no journal) against
   ``kothkit run connect4_hidden --trusted`` at ``--jobs 1`` and ``--jobs 2``, each with a
   fresh journal; the runs alternate, so that the moods of this shared machine fall on all
   alike.  ``--json`` is left out of those and timed apart: an extra ``--jobs 1`` run with
   ``--json`` in each repetition, its cost the difference of the medians;
3. gomoku_swap2 between four instant-reply C bots (benchmarks/bots/instant): ``kothkit run``
   at ``--jobs 1`` and ``--jobs 2`` (their ratio), and from bench_referee.py the judge's
   overhead per move, the start and stop of both bots per game, and its floors: the same two
   bots started and stopped by a bare loop without the judge, with no jail and under the jail.

It prints best and median of each, and the ratios against the targets of issue 20.

kothkit and its game plugins are byte-compiled first, as ``pip install`` does: a machine that
sets PYTHONDONTWRITEBYTECODE (this one does) would otherwise compile them from source at every
command (about 0.13 s a command), which no installed copy does.
"""

from __future__ import annotations

import argparse
import compileall
import importlib.metadata
import importlib.util
import io
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import bench_referee  # noqa: E402  (beside this file)

SEED_CTL = ROOT / "tests" / "connect4_hidden" / "seed_controller.py"
C4_BOTS = ROOT / "plugins" / "connect4_hidden" / "bots"
EXAMPLES = ("random_player", "constant_player", "better_random_player", "better_constant_player")

# The seed's controller as `python3 controller.py` runs it: import, play, print the table.
SEED_RUN = """
import importlib.util, random, sys
spec = importlib.util.spec_from_file_location("controller", sys.argv[1])
c = importlib.util.module_from_spec(spec); spec.loader.exec_module(c)
print(c.table(c.players, c.run_tournament(c.players, rounds=int(sys.argv[2]))))
"""


def byte_compile() -> int:
    """Byte-compile kothkit and every installed game plugin's package (not their bots), as
    ``pip install`` does for an installed copy; the number of packages."""
    names = ["kothkit"] + [ep.value.split(".")[0] for ep in importlib.metadata.entry_points(group="kothkit")]
    done = 0
    for name in dict.fromkeys(names):
        spec = importlib.util.find_spec(name)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            compileall.compile_dir(folder, quiet=1, rx=re.compile(r"[/\\]bots[/\\]"))
            done += 1
    return done


def kothkit_cmd() -> list[str]:
    """The `kothkit` console script of this Python, as users run it."""
    script = Path(sys.executable).parent / "kothkit"
    return [str(script)] if script.exists() else [sys.executable, "-m", "kothkit"]


def timed(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    """Wall seconds of ``cmd``; a failure stops the benchmark with the command's output."""
    t = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=3600,
                       env=env)
    took = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f"failed ({p.returncode}): {' '.join(cmd)}\n{p.stdout[-3000:]}")
    return took


def summary(xs: list[float]) -> tuple[float, float]:
    return min(xs), statistics.median(xs)


def verdict(value: float, target: float, higher: bool) -> str:
    ok = value >= target if higher else value <= target
    return "meets" if ok else "misses"


STARTUP = (["--version"], ["games"], ["run", "--help"],
           ["run", "connect4_hidden", "--rounds", "1", "--trusted", "--jobs", "1", "-q", "--db", "one.sqlite"])


def checkout(rev: str, into: Path) -> dict[str, str]:
    """kothkit and its bundled games as they were at git revision ``rev``, byte-compiled in
    ``into``: the environment that makes ``python -m kothkit`` run them (each game's package
    under the name its entry point imports, ``kothkit_<folder>``, found before the installed one)."""
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "kothkit", "plugins"], stdout=subprocess.PIPE,
                         check=True)
    into.mkdir()
    with tarfile.open(fileobj=io.BytesIO(tar.stdout)) as t:
        t.extractall(into, filter="data")
    for game in (into / "plugins").iterdir():
        if (game / "__init__.py").exists():
            (into / f"kothkit_{game.name}").symlink_to(game, target_is_directory=True)
    compileall.compile_dir(into, quiet=1, rx=re.compile(r"[/\\]bots[/\\]"))
    return {**os.environ, "PYTHONPATH": str(into)}


def bench_startup(repeat: int, tmp: Path, before: list[str] | None = None) -> None:
    revs = before or []
    k = kothkit_cmd() if not revs else [sys.executable, "-m", "kothkit"]
    envs: list[dict[str, str] | None] = [None] + [checkout(rev, tmp / f"before-{i}") for i, rev in enumerate(revs)]
    print("1. start-up, wall time of the command" + (f", now and at {', '.join(revs)}, alternating" if revs else ""))
    for args in STARTUP:
        times: list[list[float]] = [[] for _ in envs]
        for _ in range(repeat):
            for got, env in zip(times, envs):
                for f in tmp.glob("one.sqlite*"):
                    f.unlink()
                got.append(timed(k + args, tmp, env))
        best, med = summary(times[0])
        shown = " ".join(args[:2]) + (" ..." if len(args) > 2 else "")
        print(f"   kothkit {shown:22}  best {best * 1000:7.0f} ms   median {med * 1000:7.0f} ms")
        for rev, then in zip(revs, times[1:]):
            b0, m0 = summary(then)
            print(f"     at {rev:12}  best {b0 * 1000:7.0f} ms   median {m0 * 1000:7.0f} ms;  "
                  f"now/then {best / b0:.2f}x best, {med / m0:.2f}x median")
    times = [timed([sys.executable, "-c", "pass"], tmp) for _ in range(repeat)]
    print(f"   (python -c pass: best {min(times) * 1000:.0f} ms)")


def bench_connect4(rounds: int, repeat: int, tmp: Path) -> None:
    k = kothkit_cmd()
    bots = [a for n in EXAMPLES for a in ("--bots", str(C4_BOTS / n))]
    games = rounds * 12

    def run(jobs: int, name: str, json: bool = False) -> float:
        db = tmp / f"{name}.sqlite"
        cmd = k + ["run", "connect4_hidden", "--trusted", "--jobs", str(jobs), "--rounds", str(rounds),
                   "--seed", "1", "--db", str(db), "--quiet", *bots]
        if json:
            cmd += ["--json", str(tmp / f"{name}.json")]
        took = timed(cmd, tmp)
        for f in tmp.glob(f"{name}.*"):
            f.unlink()
        return took

    print(f"2. connect4_hidden, the seed's four example bots, {rounds:,} rounds ({games:,} games), "
          f"{repeat} runs of each, alternating; whole commands, wall time")
    t: dict[str, list[float]] = {"seed": [], "j1": [], "j2": [], "json": []}
    for r in range(repeat):
        t["seed"].append(timed([sys.executable, "-c", SEED_RUN, str(SEED_CTL), str(rounds)], tmp))
        t["j1"].append(run(1, f"j1_{r}"))
        t["j2"].append(run(2, f"j2_{r}"))
        t["json"].append(run(1, f"json_{r}", json=True))
    labels = {"seed": "seed controller (python -c)", "j1": "kothkit run --trusted --jobs 1",
              "j2": "kothkit run --trusted --jobs 2", "json": "the same --jobs 1 with --json"}
    for key, label in labels.items():
        best, med = summary(t[key])
        print(f"   {label:32} best {best:6.2f} s ({games / best:7,.0f} games/s)   median {med:6.2f} s")
    sb, sm = summary(t["seed"])
    for key, target in (("j1", 2.0), ("j2", 3.0)):
        b, m = summary(t[key])
        print(f"   {labels[key]:32} {sb / b:.2f}x the controller best/best, {sm / m:.2f}x median/median;  "
              f"target >= {target:.0f}x: {verdict(sm / m, target, True)}")
    print(f"   --json costs {statistics.median(t['json']) - statistics.median(t['j1']):+.2f} s (median minus median)")


def bench_swap2(rounds: int, repeat: int, games: int, tmp: Path) -> None:
    from kothkit.plugins import get_game

    info = get_game("gomoku_swap2")
    specs = bench_referee.instant_bots(tmp)  # built here, so that no run below pays the build
    k = kothkit_cmd()
    n = rounds * 12
    print(f"3. gomoku_swap2, four instant C bots, {rounds} rounds ({n} games), {repeat} runs of each, alternating")
    t: dict[int, list[float]] = {1: [], 2: []}
    for r in range(repeat):
        for jobs in (1, 2):
            db = tmp / f"s{jobs}_{r}.sqlite"
            t[jobs].append(timed(k + ["run", "gomoku_swap2", "--bots", str(tmp / "bots"), "--jobs", str(jobs),
                                      "--rounds", str(rounds), "--seed", "1", "--db", str(db), "--quiet"], tmp))
    for jobs in (1, 2):
        best, med = summary(t[jobs])
        print(f"   kothkit run --jobs {jobs}   best {best:6.2f} s ({n / best:6.1f} games/s)   median {med:6.2f} s")
    ratio = statistics.median(t[1]) / statistics.median(t[2])
    print(f"   --jobs 2 / --jobs 1: {min(t[1]) / min(t[2]):.2f}x best/best, {ratio:.2f}x median/median;  "
          f"target >= 1.8x: {verdict(ratio, 1.8, True)}")
    figs = [bench_referee.per_move(info, specs, games) for _ in range(repeat)]
    ingame = sorted(f["ingame"] for f in figs)
    startstop = sorted(f["startstop"] for f in figs)
    print(f"   from bench_referee, {repeat} x {games} single games of {figs[0]['moves']} moves "
          f"(medians of each run, lowest-highest):")
    for key, label in (("raw", "bare round trip (baseline)"), ("reply", "reply time, as measured")):
        xs = sorted(f[key] for f in figs)
        print(f"   {label:26} {xs[0]:6.1f}-{xs[-1]:6.1f} us")
    print(f"   judge overhead per move    {ingame[0]:6.1f}-{ingame[-1]:6.1f} us   target <= 50 us: "
          f"{verdict(statistics.median(ingame), 50, False)}")
    print(f"   start and stop, both bots  {startstop[0]:6.2f}-{startstop[-1]:6.2f} ms a game   target <= 2 ms: "
          f"{verdict(statistics.median(startstop), 2, False)}")
    # bench_referee counts the wait for each bot's first reply (a jailed bot still starting when
    # first asked) in start and stop; the replies themselves, for the record:
    first = sorted(f["first"] for f in figs)
    print(f"   -- the bots' first replies (waiting for their start) {first[0]:6.2f}-{first[-1]:6.2f} ms a game")
    # The floors, measured between the same games: what starting and stopping the same two bots
    # costs with no judge around them, without a jail and under the jail helper alone.
    for key, label in (("floor", "no judge, no jail (bare Popen)"), ("floor_jail", "no judge, the jail helper alone")):
        xs = sorted(f[key] for f in figs)
        print(f"   -- floor: {label:33} {xs[0]:6.2f}-{xs[-1]:6.2f} ms a game")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=2000, help="connect4_hidden rounds (12 games each)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each command")
    ap.add_argument("--swap2-rounds", type=int, default=40, help="gomoku_swap2 rounds (12 games each)")
    ap.add_argument("--games", type=int, default=20, help="single Swap2 games for the per-move figures, a run")
    ap.add_argument("--only", choices=("startup", "connect4", "swap2"), help="run one part only")
    ap.add_argument("--before", metavar="REV", action="append",
                    help="also time the start-up of kothkit at this git revision (repeatable)")
    args = ap.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}")
    print(f"byte-compiled {byte_compile()} packages (kothkit and its game plugins), as pip install does")
    tmp = Path(tempfile.mkdtemp(prefix="kothkit-bench-command-"))
    try:
        if args.only in (None, "startup"):
            bench_startup(max(5, args.repeat), tmp, args.before)
        if args.only in (None, "connect4"):
            bench_connect4(args.rounds, args.repeat, tmp)
        if args.only in (None, "swap2"):
            bench_swap2(args.swap2_rounds, args.repeat, args.games, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
