"""The host behind ``kothkit serve`` at the course's scale: 200 brains, 39,800 stored games.

Run by hand from the repository root::

    python benchmarks/bench_host.py               # 200 brains, 5 measurements of each read
    python benchmarks/bench_host.py --brains 100 --repeat 20

It makes a submissions challenge of blindfold connect4 with ``--brains`` active Python brains (no
build step) and a journal holding every game of their round robin (rows written directly, with
the ids the schedule gives: the host finds them all and plays nothing), then times:

- the host's start: reading the submissions, scheduling the round robin, finding its games;
- each read the web makes, after a change (a stored game bumps the version): the Scoreboard
  (``standings``), the crosstable, the games list, All Submissions;
- a new submission: from ``submit`` to the Scoreboard's version that has it scheduled (its
  build, a worker round trip, and its schedule);
- the schedule of one change on its own, as the host makes it (only the pairs of the brain added
  or replaced) and as a full schedule of the round robin (what the host did before, and still
  does at its start), alternately in the same run: wall time and the planning thread's CPU time,
  and their ratio (full / incremental), for a new brain and for a replaced one.  (The host's
  queue then holds the submissions' games not played yet: their tasks are made again too.)

Printed: each time in ms, min / median / max over ``--repeat``.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def make_state(root: Path, brains: int, source: Callable[[int], bytes] = lambda i: f"print({i})\n".encode()) -> Path:
    """A submissions challenge with ``brains`` active brains (brain ``i``'s ``brain.py`` is
    ``source(i)``) and every game of their round robin stored (as played, without playing)."""
    from kothkit.bots.folders import load_folder
    from kothkit.playing.schedule import Schedule
    from kothkit.plugins import game_code, get_game
    from kothkit.serve import settings as serve_settings
    from kothkit.serve.submissions import Store
    from kothkit.store.journal import Journal

    ch = root / "course"
    ch.mkdir(parents=True)
    (ch / "kothkit.toml").write_text('game = "connect4_hidden"\nrounds = 1\nseed = 3\n[serve]\nkind = "submissions"\n'
                                     'min_interval = 0\nper_day = 100000\n')
    settings = serve_settings.load(ch)
    store = Store(root / "state")
    specs = []
    for i in range(brains):
        row = store.add("course", settings, f"s{i:04d}", "brain.py", "python3", source(i), now=1_000_000.0 + i)
        store.set_status(row.id, "active")
        specs.append(load_folder(store.folder(row)))
    store.close()
    info = get_game("connect4_hidden")
    schedule = Schedule(game=info.name, bots=tuple(sorted(specs, key=lambda b: b.name)), seed=3, rounds=1,
                        limits=info.limits, rules=dict(info.rules), code=game_code(info))
    rows = []
    for t in schedule:
        a, b = t.players
        winner = (a.name, b.name, None)[t.seed % 3]
        rows.append((t.id, info.name, t.index, json.dumps([a.name, b.name]), json.dumps([a.hash, b.hash]), t.seed,
                     winner, "four in a row" if winner else "board full", None, None, "[]", "{}", 0.01,
                     2_000_000.0 + t.index))
    with Journal(root / "state" / "journals" / "course.sqlite") as j:
        j.add_rows(rows)
    return ch


def spec_of(root: Path, name: str, text: str):
    """A Python brain's bot folder (not a submission: the host does not see it)."""
    from kothkit.bots.folders import load_folder

    d = root / "extra" / f"{name}-{abs(hash(text))}"
    d.mkdir(parents=True)
    (d / "brain.py").write_text(text)
    (d / "bot.toml").write_text(f'name = "{name}"\ncommand = ["python3", "brain.py"]\n')
    return load_folder(d)


def plan_times(host, root: Path, repeat: int) -> dict[str, list[float]]:
    """The schedule of one change (a new brain, a replaced one), made as the host makes it and in
    full, alternately; each plan made and dropped (never applied: the host goes on as it was)."""
    import attrs

    from kothkit.store.journal import Journal

    c = host._get("course")
    times: dict[str, list[float]] = {}
    with Journal(c.journal_path, readonly=True) as reader:
        for i in range(repeat):
            with host._lock:
                bots = dict(c.bots)
            first = min(bots)
            for change, extra in (("new brain", spec_of(root, f"a{i:03d}", f"print('a {i}')\n")),
                                  ("replaced brain", spec_of(root, first, f"print('again {i}')\n"))):
                changed = tuple(sorted({**bots, extra.name: extra}.values(), key=lambda b: b.name))
                for how, served in (("incremental", c), ("full", attrs.evolve(c, plan=None))):
                    gc.collect()  # (each plan starts clean: a full one leaves much to collect)
                    wall, cpu = time.perf_counter(), time.thread_time()
                    plan = host._plan(served, changed, {extra.name}, set(), reader)
                    cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
                    assert plan is not None and len(plan.plan.pairs) == len(changed) * (len(changed) - 1) // 2
                    times.setdefault(f"{change}, {how}", []).append(wall * 1000)
                    times.setdefault(f"{change}, {how}, CPU", []).append(cpu * 1000)
    return times


def ms(f) -> float:
    began = time.perf_counter()
    f()
    return (time.perf_counter() - began) * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--brains", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    from kothkit.serve.host import Host

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        began = time.perf_counter()
        ch = make_state(root, args.brains)
        print(f"{args.brains} brains, {args.brains * (args.brains - 1)} games stored in "
              f"{time.perf_counter() - began:.1f} s")
        host = Host([ch], root / "state", jobs=1)
        try:
            print(f"start: {ms(host.start):.0f} ms ({len(host.games('course'))} games counted, "
                  f"{host.challenge('course').queued} queued)")
            served = host._get("course")
            times: dict[str, list[float]] = {}
            for _ in range(args.repeat):
                for what, f in (("standings", lambda: host.standings("course")),
                                ("crosstable", lambda: host.crosstable("course")),
                                ("games", lambda: host.games("course")),
                                ("submissions", lambda: host.submissions("course"))):
                    with host._lock:  # what a stored game does to the version
                        host._bump(served)
                    times.setdefault(what, []).append(ms(f))
            for i in range(args.repeat):
                v = host.version("course")
                began = time.perf_counter()
                host.submit("course", f"new{i}", "brain.py", "python3", f"print('new {i}')\n".encode())
                while not any(s.owner == f"new{i}" for s in host.standings("course")):
                    v = host.wait("course", v, 60)
                times.setdefault("submission scheduled", []).append((time.perf_counter() - began) * 1000)
            for what, xs in times.items():
                print(f"{what}: {min(xs):.1f} / {statistics.median(xs):.1f} / {max(xs):.1f} ms (min / median / max)")
            plans = plan_times(host, root, args.repeat)
            print(f"the schedule of one change ({len(served.bots) + 1} brains), min / median / max:")
            for change in ("new brain", "replaced brain"):
                for what in ("", ", CPU"):
                    inc, full = plans[f"{change}, incremental{what}"], plans[f"{change}, full{what}"]
                    print(f"  {change}{what or ', wall'}: {min(inc):.1f} / {statistics.median(inc):.1f} / "
                          f"{max(inc):.1f} ms; full: {min(full):.0f} / {statistics.median(full):.0f} / "
                          f"{max(full):.0f} ms; full / incremental (medians): "
                          f"{statistics.median(full) / statistics.median(inc):.0f}x")
        finally:
            host.stop()


if __name__ == "__main__":
    main()
