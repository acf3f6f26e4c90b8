"""Benchmark: the referee's own overhead per move, and games per second at --jobs 1 and 2.

Run by hand:  python benchmarks/bench_referee.py [--games N]

Everything is measured in this one run, against a baseline measured in the same run:
- baseline: the median pipe round trip to the same instant-reply bot, driven by a bare loop
  (os.write + os.read, no referee, no game logic);
- the referee: a real gomoku_swap2 game between two instant-reply bots (C, a few microseconds
  of their own per reply); per move, the referee's measured reply time, and the judge's own
  overhead = (wall time - bare round trips) / moves -- game logic, encoding, verdict checks,
  recording -- once during play, from the third prompt (both bots have answered once: a
  bot's first reply waits for its start, which the jail does not wait for) to the last reply,
  and once over the whole game, the start and stop of both bot processes (jail included)
  spread over the moves; start and stop is the rest of the game's wall time;
- games per second of a whole tournament of four instant bots at --jobs 1 and --jobs 2;
- the floor of start and stop: the same two bots started, sent their first prompt, read, their
  stdin closed and reaped by a bare Popen loop (no referee), less the bare round trips of those
  prompts; once with no jail at all, once under the jail helper with the very options the judge
  gives it (cgroups, prepared root, seccomp...), which is what the jail itself costs.

The single games and the baseline run with this process and the bots on one core, as a
tournament job runs them.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kothkit.bots.build import build
from kothkit.bots.folders import load_bots
from kothkit.playing.referee import play_game
from kothkit.playing.tournament import run_tournament
from kothkit.plugins import get_game
from kothkit.store.records import GameTask

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


def bare_pass(argvs: list[list[str]], prompts: list[str], cwds: list[Path], pass_fds: tuple[int, ...] = ()) -> float:
    """The seconds a bare loop takes to do what a game does to start and stop its bots: start each
    of ``argvs`` by Popen, send each its prompt in turn and read its reply, close their stdins and
    reap them."""
    t0 = time.perf_counter()
    procs = [subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0, cwd=cwd,
                              pass_fds=pass_fds) for argv, cwd in zip(argvs, cwds)]
    try:
        for p, line in zip(procs, prompts):
            os.write(p.stdin.fileno(), line.encode() + b"\n")
            buf = b""
            while not buf.endswith(b"\n"):
                data = os.read(p.stdout.fileno(), 4096)
                if not data:
                    raise RuntimeError(f"{p.args[0]} gave no reply")
                buf += data
        for p in procs:
            p.stdin.close()
        for p in procs:
            p.wait(5)
    finally:
        for p in procs:
            p.kill()
            p.wait()
            p.stdout.close()
    return time.perf_counter() - t0


@contextlib.contextmanager
def floor_passes(info, specs: list, prompts: list[str], core: int):
    """A function doing one pass of the floors (:func:`bare_pass`) for the first two of ``specs``:
    (seconds) without a jail, and under the jail helper with the judge's own options for them."""
    from kothkit.procs.contain import Jail

    two = specs[:2]
    cwds = [s.path for s in two]
    bare = [list(s.command) for s in two]
    # As a game's seats make them (ProgramSeat.start): one jail per bot, its options for the game.
    jails = [Jail(info.limits, cpu=core, writable=s.stateful, freezable=not info.pondering, reuse_root=True)
             for s in two]
    try:
        jailed = []
        for jail, s in zip(jails, two):
            jail.setup()
            jailed.append(jail.wrap(list(s.command), s.path))
        fds = tuple(fd for j in jails for fd in j.pass_fds)

        def one() -> tuple[float, float]:
            return bare_pass(bare, prompts, cwds), bare_pass(jailed, prompts, cwds, fds)

        one()  # warm up
        yield one
    finally:
        for j in jails:
            j.teardown()


def instant_bots(tmp: Path, n: int = 4) -> list:
    """``n`` copies of the instant-reply C bot under ``tmp/bots``, named instant0.., built."""
    bots_dir = tmp / "bots"
    for i in range(n):
        shutil.copytree(HERE / "bots" / "instant", bots_dir / f"i{i}")
        toml = bots_dir / f"i{i}" / "bot.toml"
        toml.write_text(toml.read_text().replace('name = "instant"', f'name = "instant{i}"'))
    loaded = load_bots([bots_dir])
    assert not loaded.errors, loaded.errors
    specs = list(loaded.bots)
    for s in specs:
        _, err = build(s)
        assert err is None, err
    return specs


def per_move(info, specs: list, games: int) -> dict[str, float]:
    """The per-move figures of ``games`` single games between the first two of ``specs``.

    Medians: ``raw`` the bare round trip (us), ``reply`` the referee's measured reply time (us),
    ``ingame`` the judge's overhead a move during play (us), ``overhead`` the same with the start
    and stop of both bots spread over the moves (us), ``startstop`` (ms a game: the wall time
    less the moves at the in-play rate), ``first`` the two bots' first replies together (ms a
    game: mostly their start, which ends in the jail after the judge has sent its first prompt),
    ``wall`` (ms a game); ``moves`` a game; the floor of ``startstop`` measured in the same run
    (:func:`bare_pass` between the games, less the bare round trips of the two first prompts; ms
    a game): ``floor`` by a bare Popen loop without a jail, ``floor_jail`` the same loop running
    the jail helper with the judge's options (no referee).
    """
    # Single games run as a tournament job runs them: this process and both bots on one core
    # (a job's worker shares its core with its bots), the baseline's bot too.
    core = min(os.sched_getaffinity(0))
    all_cores = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {core})
    try:
        # The baseline: the very prompts of a real game, sent to the same bot by a bare loop.
        sent: list[str] = []
        probe = GameTask(id="probe", game=info.name, players=(specs[0], specs[1]), seed=0, limits=info.limits)
        play_game(probe, info=info, on_event=lambda kind, seat, text, ms: sent.append(text) if kind == "send" else None)
        raw = raw_round_trips(specs[0].path, sent)
        raw_game = sum(raw)
        limits = info.limits.replace(grace=0.5, pin_cpu=os.environ.get("PIN", "1") == "1")
        replies, overhead, ingame, startstop, first, walls = [], [], [], [], [], []
        floors: list[tuple[float, float]] = []
        with floor_passes(info, specs, sent[:2], core) as floor_pass:
            for g in range(games):
                task = GameTask(id=f"b{g}", game=info.name, players=(specs[0], specs[1]), seed=0, limits=limits)
                sends: list[float] = []
                answers: list[float] = []
                t0 = time.perf_counter()
                rec = play_game(task, info=info, cpu=core,
                                on_event=lambda kind, *_: (sends if kind == "send" else answers if kind == "reply"
                                                           else []).append(time.perf_counter()))
                wall = time.perf_counter() - t0
                moves = len(rec.moves)
                replies.extend(m.ms * 1000 for m in rec.moves)
                # The judge's own time: everything but the bots' own time, which is at most a bare
                # round trip per move (the bots answer instantly). Every game replays
                # the probe's game (same seed, deterministic bots), so the baseline is exact.
                overhead.append((wall - raw_game) / moves * 1e6)
                # The same during play: from the third prompt, when both bots have started, to the last reply.
                span = answers[-1] - sends[2]
                rate = (span - sum(raw[2:])) / (moves - 2)
                ingame.append(rate * 1e6)
                startstop.append((wall - span - sum(raw[:2]) - 2 * rate) * 1000)
                first.append(rec.moves[0].ms + rec.moves[1].ms)
                walls.append(wall)
                floors.append(floor_pass())  # between the games: the same load on the machine
    finally:
        os.sched_setaffinity(0, all_cores)
    med = statistics.median
    return {"raw": med(raw) * 1e6, "reply": med(replies), "ingame": med(ingame), "overhead": med(overhead),
            "startstop": med(startstop), "first": med(first), "wall": med(walls) * 1000, "moves": moves,
            "floor": (med(f[0] for f in floors) - sum(raw[:2])) * 1000,
            "floor_jail": (med(f[1] for f in floors) - sum(raw[:2])) * 1000}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=20, help="single games measured for the per-move figures")
    ap.add_argument("--rounds", type=int, default=5, help="rounds of the 4-bot tournament for games/s")
    args = ap.parse_args()
    info = get_game("gomoku_swap2")
    tmp = Path(tempfile.mkdtemp(prefix="kothkit-bench-"))
    try:
        specs = instant_bots(tmp)
        m = per_move(info, specs, args.games)
        print(f"baseline: bare round trip of the game's prompts to the bot, median {m['raw']:6.1f} us")
        print(f"referee: measured reply time per move, median                 {m['reply']:8.1f} us "
              f"(ratio to baseline {m['reply'] / m['raw']:.2f})")
        print(f"judge overhead per move during play (no start/stop), median  {m['ingame']:8.1f} us")
        print(f"judge overhead per move, start and stop of both bots included {m['overhead']:8.1f} us "
              f"({m['moves']} moves a game)")
        print(f"start and stop of both bots (jailed where the machine allows)  {m['startstop']:8.1f} ms a game")
        print(f"-- of which the bots' first replies (waiting for them to start) {m['first']:7.1f} ms a game")
        print(f"-- floor: the same by a bare Popen loop, no referee, no jail    {m['floor']:8.1f} ms a game")
        print(f"-- floor: the same under the jail helper alone (no referee)     {m['floor_jail']:8.1f} ms a game")
        print(f"a game's wall time, median                                    {m['wall']:8.1f} ms")
        limits = info.limits.replace(grace=0.5, pin_cpu=os.environ.get("PIN", "1") == "1")
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
