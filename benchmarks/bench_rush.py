"""A course's rush before a deadline, on ``kothkit serve --cluster local:N`` for several N.

Run by hand from the repository root (needs ``pip install -e '.[serve,cluster]'``)::

    python benchmarks/bench_rush.py                                   # a quick look: about 10 minutes
    python benchmarks/bench_rush.py --brains 200 --submissions 100 --minutes 10 --workers 1,4,8

A submissions challenge of blindfold connect4 with ``--brains`` active Python brains whose round
robin is already played (rows written directly, as benchmarks/bench_host.py does); then
``--submissions`` of them submit again, evenly over ``--minutes`` (compressed: the real rush is
100 submissions over 10 minutes), and the host plays the new brains' games on a local Dask cluster
of N workers.  Every brain sleeps ``--move`` seconds a move (and then answers), so that 2 cores
can stand in for many workers: a game costs its workers time, not CPU.

Printed for each N, from one run: the time from a submission to its first standing (its first
game counted) and to its last game (p50, p95), games per hour, the host's CPU per game (this
process, less the Scoreboard reader's own thread), the machine's cores busy (all processes: the
workers and their bots too), the Scoreboard's p99 during the rush (a reader asking for it every
50 ms), throughput (games per hour while games wait for a worker) at N
workers against 1 (the target: at least 0.8 N
while the host is not the bottleneck; the host's CPU share says whether it is), and the host's
CPU by thread (its dispatcher, Dask's event loop with the local cluster's scheduler, ...).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_host  # noqa: E402  (beside this file)

BRAIN = ("import sys, time\nk = {offset}\nfor line in sys.stdin:\n    time.sleep({move})\n"
         "    print(k % 7, flush=True)\n    k += {step}\n")


def brain(i: int, move: float, version: int = 0) -> bytes:
    return BRAIN.format(offset=i % 7, move=move, step=1 + (i + version) % 3).encode()


def make_state(root: Path, brains: int, move: float) -> Path:
    """The challenge, its brains (each taking ``move`` seconds a move) and every game of their
    round robin stored."""
    return bench_host.make_state(root, brains, lambda i: brain(i, move))


def pct(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def stored(root: Path) -> int:
    """Games in the challenge's journal."""
    from kothkit.store.journal import Journal

    with Journal(root / "state" / "journals" / "course.sqlite", readonly=True) as j:
        return j.count()


def busy_jiffies() -> tuple[int, int]:
    """Clock ticks the whole machine spent busy and in all so far (/proc/stat): the workers' CPU
    (their bots are their grandchildren) is in no process's own usage; others' jobs are in it."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    return sum(fields) - fields[3] - fields[4], sum(fields)


def thread_cpu() -> dict[str, float]:
    """Seconds of CPU of each thread of this process so far, by its Python name (threads of the
    same name added up; a thread Python did not start is named by the kernel's name for it)."""
    tick = os.sysconf("SC_CLK_TCK")
    names = {t.native_id: t.name for t in threading.enumerate()}
    out: dict[str, float] = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            stat = Path(f"/proc/self/task/{tid}/stat").read_text()
            comm = Path(f"/proc/self/task/{tid}/comm").read_text().strip()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        name = names.get(int(tid)) or f"({comm})"
        # Dask's and asyncio's threads are numbered: one line for each kind.
        name = name.rstrip("0123456789-_ ") or name
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return out


def rush(root: Path, workers: int, args) -> dict:
    from kothkit.serve.host import Host

    ch = make_state(root, args.brains, args.move)
    host = Host([ch], root / "state", cluster=f"local:{workers}")
    host.start()
    stop = threading.Event()
    board: list[float] = []
    reader_cpu = [0.0]

    def reader() -> None:
        began = time.thread_time()
        while not stop.is_set():
            t = time.perf_counter()
            host.standings("course")
            board.append(time.perf_counter() - t)
            stop.wait(0.05)
        reader_cpu[0] = time.thread_time() - began

    try:
        stored0 = stored(root)
        cpu0 = resource.getrusage(resource.RUSAGE_SELF)
        machine0, threads0 = busy_jiffies(), thread_cpu()
        began = time.perf_counter()
        watcher = threading.Thread(target=reader, daemon=True)
        watcher.start()
        sent: dict[int, float] = {}
        first: dict[int, float] = {}
        last: dict[int, float] = {}
        gap = args.minutes * 60 / max(1, args.submissions)
        deadline = began + args.minutes * 60 + args.timeout
        k = 0
        #: (time, games stored, games queued): the throughput is measured while games wait for workers.
        samples: list[tuple[float, int, int]] = []
        while time.perf_counter() < deadline:
            now = time.perf_counter()
            while k < args.submissions and now >= began + k * gap:
                author = k * max(1, args.brains // max(1, args.submissions)) % args.brains
                s = host.submit("course", f"s{author:04d}", "brain.py", "python3", brain(author, args.move, 1 + k))
                sent[s.id] = time.perf_counter()
                k += 1
            for s in host.submissions("course"):
                if s.id in sent:
                    if s.played and s.id not in first:
                        first[s.id] = time.perf_counter() - sent[s.id]
                    if s.status == "done" and s.id not in last:
                        last[s.id] = time.perf_counter() - sent[s.id]
            samples.append((time.perf_counter(), stored(root), host.challenge("course").queued))
            if k == args.submissions and len(last) == len(sent):
                break
            time.sleep(0.2)
        wall = time.perf_counter() - began
        stop.set()
        watcher.join(5)
        cpu1 = resource.getrusage(resource.RUSAGE_SELF)
        machine1, threads1 = busy_jiffies(), thread_cpu()
        played = stored(root) - stored0  # (the games of brains replaced during the rush too)
        cpu = (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime) - reader_cpu[0]
    finally:
        stop.set()
        host.stop()
    backlog = [(t, n) for t, n, queued in samples if queued > 0]
    rate = (backlog[-1][1] - backlog[0][1]) / (backlog[-1][0] - backlog[0][0]) if len(backlog) > 1 else float("nan")
    return {"workers": workers, "wall": wall, "games": played, "rate": rate, "first": list(first.values()),
            "last": list(last.values()), "missing": len(sent) - len(last), "cpu": cpu, "board": board,
            # The machine's cores busy (all of them: the workers, their bots, this process, others' jobs).
            "machine": (machine1[0] - machine0[0]) / max(1, machine1[1] - machine0[1]),
            "machine_cpu": (machine1[0] - machine0[0]) / os.sysconf("SC_CLK_TCK"),
            "threads": {k: v - threads0.get(k, 0.0) for k, v in threads1.items() if v - threads0.get(k, 0.0) > 0.05}}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--brains", type=int, default=20)
    ap.add_argument("--submissions", type=int, default=6)
    ap.add_argument("--minutes", type=float, default=0.5, help="over how long the submissions come")
    ap.add_argument("--move", type=float, default=0.01, help="seconds each brain sleeps a move")
    ap.add_argument("--workers", default="1,2,4", help="the N of local:N to run, comma-separated")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds after the last submission to give up")
    args = ap.parse_args()
    results = []
    for n in [int(x) for x in args.workers.split(",")]:
        with tempfile.TemporaryDirectory() as tmp:
            r = rush(Path(tmp), n, args)
        results.append(r)
        print(f"local:{n}: {r['games']} games in {r['wall']:.0f} s; submission -> first standing p50/p95 "
              f"{pct(r['first'], .5):.1f}/{pct(r['first'], .95):.1f} s, -> last game "
              f"{pct(r['last'], .5):.1f}/{pct(r['last'], .95):.1f} s"
              + (f" ({r['missing']} not done)" if r["missing"] else ""), flush=True)
    base = results[0]["rate"] if results else float("nan")
    print()
    print(f"{args.brains} brains, {args.submissions} submissions over {args.minutes:g} min, {args.move:g} s a move")
    print("| workers | games/h | first standing p50 / p95 | last game p50 / p95 | host CPU/game | "
          "host CPU share | machine CPU/game | machine busy | Scoreboard p99 | throughput vs 1 |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in results:
        rate = r["rate"]
        target = 0.8 * r["workers"] / results[0]["workers"]
        per_game = r["cpu"] / r["games"] * 1000 if r["games"] else float("nan")
        print(f"| {r['workers']} | {rate * 3600:,.0f} | {pct(r['first'], .5):.1f} / {pct(r['first'], .95):.1f} s | "
              f"{pct(r['last'], .5):.1f} / {pct(r['last'], .95):.1f} s | {per_game:.1f} ms | "
              f"{r['cpu'] / r['wall']:.0%} | {r['machine_cpu'] / max(1, r['games']) * 1000:.0f} ms | "
              f"{r['machine']:.0%} | {pct(r['board'], .99) * 1000:.1f} ms | "
              f"{rate / base if base else float('nan'):.2f} (target {target:.1f}) |")
    print()
    print("The host's CPU by thread (seconds over the rush; the Scoreboard reader is the bench's own):")
    for r in results:
        top = sorted(r["threads"].items(), key=lambda kv: -kv[1])
        print(f"  local:{r['workers']}: " + ", ".join(f"{name} {sec:.1f} s" for name, sec in top[:6]))


if __name__ == "__main__":
    main()
