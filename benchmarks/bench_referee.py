"""Benchmark: the referee's own overhead per move, and games per second at --jobs 1 and 2.

Run by hand:  python benchmarks/bench_referee.py [--games N]

Everything is measured in this one run, against a baseline measured in the same run:
- baseline: the median pipe round trip to the same instant-reply bot, driven by a bare loop
  (os.write + os.read, no referee, no game logic);
- the referee: a real gomoku_swap2 game between two instant-reply bots (C, a few microseconds
  of their own per reply); per move, the referee's measured reply time, and the judge's own
  overhead = (game wall time - sum of measured reply times) / moves, which includes the
  game logic, encoding, verdict checks, recording, and process start/stop spread over the moves;
- games per second of a whole tournament of four instant bots at --jobs 1 and --jobs 2.
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


def raw_round_trips(bot: Path, n: int = 2000) -> list[float]:
    p = subprocess.Popen([str(bot / "bot")], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    board = b'0 [((7,7),"B")]\n'
    times = []
    try:
        for _ in range(n):
            t0 = time.perf_counter()
            os.write(p.stdin.fileno(), board)
            buf = b""
            while not buf.endswith(b"\n"):
                buf += os.read(p.stdout.fileno(), 4096)
            times.append(time.perf_counter() - t0)
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
        raw = raw_round_trips(specs[0].path)
        raw_med = statistics.median(raw) * 1e6
        limits = info.limits.replace(grace=0.5)
        per_move, overhead, walls = [], [], []
        for g in range(args.games):
            task = GameTask(id=f"b{g}", game=info.name, players=(specs[0], specs[1]), seed=g, limits=limits)
            t0 = time.perf_counter()
            rec = play_game(task, info=info)
            wall = time.perf_counter() - t0
            moves = len(rec.moves)
            replies = sum(m.ms for m in rec.moves) / 1000
            per_move.extend(m.ms * 1000 for m in rec.moves)
            overhead.append((wall - replies) / moves * 1e6)
            walls.append(wall)
        print(f"baseline: bare pipe round trip to the bot, median        {raw_med:8.1f} us")
        print(f"referee: measured reply time per move, median            {statistics.median(per_move):8.1f} us "
              f"(ratio to baseline {statistics.median(per_move) / raw_med:.2f})")
        print(f"referee: judge overhead per move (wall - replies), median {statistics.median(overhead):8.1f} us "
              f"over {len(rec.moves)} moves a game (incl. start/stop of two processes)")
        print(f"         a game's wall time, median                      {statistics.median(walls) * 1000:8.1f} ms")
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
