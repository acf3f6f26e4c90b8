"""Benchmark: the referee's own overhead per move, and games per second at --jobs 1 and 2.

Run by hand:  python benchmarks/bench_referee.py [--games N]

Everything is measured in this one run, against a baseline measured in the same run:
- baseline: the median pipe round trip to the same instant-reply bot, driven by a bare loop
  (os.write + os.read, no referee, no game logic);
- the referee: a real gomoku_swap2 game between two instant-reply bots (C, a few microseconds
  of their own per reply); per move, the referee's measured reply time, and the judge's own
  overhead = (game wall time - moves x bare round trip) / moves -- game logic, encoding,
  verdict checks, recording -- once between the first prompt and the last reply, and once
  with the start and stop of both bot processes (jail included) spread over the moves;
- games per second of a whole tournament of four instant bots at --jobs 1 and --jobs 2.

The single games and the baseline run with this process and the bots on one core, as a
tournament job runs them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kothkit.bots import load_bots
from kothkit.build import build
from kothkit.plugins import get_game
from kothkit.records import GameTask
from kothkit.referee import play_game
from kothkit.tournament import run_tournament

HERE = Path(__file__).resolve().parent


def raw_round_trips(bot: Path, prompts: list[str], repeat: int = 20) -> list[float]:
    """Each prompt's bare round trip (os.write + os.read, no referee), over ``repeat`` passes."""
    times = [0.0] * len(prompts)
    for _ in range(repeat):
        p = subprocess.Popen([str(bot / "bot")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        try:
            for i, line in enumerate(prompts):
                data = line.encode() + b"\n"
                t0 = time.perf_counter()
                os.write(p.stdin.fileno(), data)
                buf = b""
                while not buf.endswith(b"\n"):
                    buf += os.read(p.stdout.fileno(), 4096)
                took = time.perf_counter() - t0
                times[i] = took if _ == 0 else min(times[i], took)
        finally:
            p.kill()
            p.wait()
    return times


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=20, help="single games measured for the per-move figures")
    ap.add_argument("--rounds", type=int, default=5, help="rounds of the 4-bot tournament for games/s")
    args = ap.parse_args()
    info = get_game("gomoku_swap2")
    tmp = Path(tempfile.mkdtemp(prefix="kothkit-bench-"))
    try:
        bots_dir = tmp / "bots"
        for i in range(4):
            shutil.copytree(HERE / "bots" / "instant", bots_dir / f"i{i}")
            toml = bots_dir / f"i{i}" / "bot.toml"
            toml.write_text(toml.read_text().replace('name = "instant"', f'name = "instant{i}"'))
        loaded = load_bots([bots_dir])
        assert not loaded.errors, loaded.errors
        specs = list(loaded.bots)
        for s in specs:
            _, err = build(s)
            assert err is None, err
        # Single games run as a tournament job runs them: this process and both bots on one core
        # (a job's worker shares its core with its bots), the baseline's bot too.
        core = min(os.sched_getaffinity(0))
        all_cores = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {core})
        # The baseline: the very prompts of a real game, sent to the same bot by a bare loop.
        sent: list[str] = []
        probe = GameTask(id="probe", game=info.name, players=(specs[0], specs[1]), seed=0, limits=info.limits)
        play_game(probe, info=info, on_event=lambda kind, seat, text, ms: sent.append(text) if kind == "send" else None)
        raw = raw_round_trips(specs[0].path, sent)
        raw_med = statistics.median(raw) * 1e6
        raw_game = sum(raw)
        limits = info.limits.replace(grace=0.5, pin_cpu=os.environ.get("PIN", "1") == "1")
        per_move, overhead, ingame, startstop, walls = [], [], [], [], []
        for g in range(args.games):
            task = GameTask(id=f"b{g}", game=info.name, players=(specs[0], specs[1]), seed=0, limits=limits)
            marks: list[float] = []
            t0 = time.perf_counter()
            rec = play_game(task, info=info, cpu=core,
                            on_event=lambda kind, *_: marks.append(time.perf_counter()))
            wall = time.perf_counter() - t0
            moves = len(rec.moves)
            per_move.extend(m.ms * 1000 for m in rec.moves)
            # The judge's own time: everything but the bots' own time, which is at most a bare
            # round trip per move (the bots answer instantly). Every game replays
            # the probe's game (same seed, deterministic bots), so the baseline is exact.
            overhead.append((wall - raw_game) / moves * 1e6)
            # The same, between the first prompt and the last reply: no process start or stop.
            ingame.append(((marks[-1] - marks[0]) - raw_game) / moves * 1e6)
            startstop.append((wall - (marks[-1] - marks[0])) * 1000)
            walls.append(wall)
        print(f"baseline: bare round trip of the game's prompts to the bot, median {raw_med:6.1f} us")
        print(f"referee: measured reply time per move, median                 {statistics.median(per_move):8.1f} us "
              f"(ratio to baseline {statistics.median(per_move) / raw_med:.2f})")
        print(f"judge overhead per move during play (no start/stop), median  {statistics.median(ingame):8.1f} us")
        print(f"judge overhead per move, start and stop of both bots included {statistics.median(overhead):8.1f} us "
              f"({moves} moves a game)")
        print(f"start and stop of both bots (jailed where the machine allows)  {statistics.median(startstop):8.1f} ms a game")
        print(f"a game's wall time, median                                    {statistics.median(walls) * 1000:8.1f} ms")
        os.sched_setaffinity(0, all_cores)
        rates = {}
        for jobs in (1, 2):
            db = tmp / f"j{jobs}.sqlite"
            t0 = time.perf_counter()
            res = run_tournament(info, specs, seed=1, journal=db, jobs=jobs, limits=limits, rounds=args.rounds)
            rates[jobs] = res.played / (time.perf_counter() - t0)
            print(f"tournament --jobs {jobs}: {res.played} games, {rates[jobs]:7.1f} games/s")
        print(f"ratio --jobs 2 / --jobs 1: {rates[2] / rates[1]:.2f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
