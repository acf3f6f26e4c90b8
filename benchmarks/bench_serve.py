"""``kothkit serve``'s Scoreboard under a course's load: 200 accounts, each with a brain, about
40,000 stored games; the time to serve the Scoreboard page, and the time from a finished game
to an open Scoreboard's event stream showing it.

Run by hand from the repository root (needs gcc and ``pip install -e '.[serve]'``; it plays the
games first, which takes minutes)::

    python benchmarks/bench_serve.py                  # 200 brains: 200 * 199 = 39,800 games
    python benchmarks/bench_serve.py --users 40       # a quick look
    python benchmarks/bench_serve.py --state DIR      # keep (or reuse) the state: played once

The challenge is blindfold connect4 played by tiny C brains (one column a prompt, each its own
sequence), a submissions challenge with one brain per account, rounds = 1.  The games are played
by a Host in this process; then ``kothkit serve`` serves that state in its own process, and
httpx asks it.

Printed: the Scoreboard page (``/c/course/``, HTML, every row with its nickname) and its JSON:
p50, p99 and max over ``--requests`` requests (the issue's target: p99 under 50 ms); then a new
brain is submitted while an event stream is open, and for each of its games the time from the
game being stored (its journal time) to the stream's message counting it: p50, p99, max (the
target: under 1 s).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import sqlite3
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHALLENGE = """game = "connect4_hidden"
rounds = 1
seed = 11

[serve]
kind = "submissions"
title = "Benchmark course"
max_bytes = 4000
min_interval = 0
per_day = 100000
build_time = 60

[serve.languages.c11]
label = "C11"
file = "brain.c"
build = ["gcc", "-O2", "-std=c11", "-o", "brain", "brain.c"]
command = ["./brain"]
"""


def brain(offset: int) -> bytes:
    return (b'#include <stdio.h>\nint main(void){char line[8192];int k=0;\n'
            b'while(fgets(line,sizeof line,stdin)){printf("%d\\n",(k++ * ' + str(1 + offset % 5).encode() +
            b' + ' + str(offset).encode() + b')%7);fflush(stdout);}return 0;}\n')


def percentiles(xs: list[float]) -> str:
    xs = sorted(xs)
    p = lambda q: xs[min(len(xs) - 1, int(q * len(xs)))]  # noqa: E731
    return f"p50 {p(0.5) * 1000:.1f} ms, p99 {p(0.99) * 1000:.1f} ms, max {xs[-1] * 1000:.1f} ms ({len(xs)} samples)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--users", type=int, default=200)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--requests", type=int, default=500)
    ap.add_argument("--state", type=Path, help="the state folder (kept; reused when it holds the games)")
    args = ap.parse_args()

    import httpx

    from kothkit.serve.accounts import Accounts
    from kothkit.serve.host import Host

    base = args.state or Path(tempfile.mkdtemp(prefix="bench-serve-"))
    course = base / "course"
    course.mkdir(parents=True, exist_ok=True)
    (course / "kothkit.toml").write_text(CHALLENGE)
    state = base / "state"
    accounts = Accounts(state)
    host = Host([course], state, args.jobs)
    host.start()
    try:
        t0 = time.monotonic()
        have = {u.login for u in accounts.users()}
        for i in range(args.users):
            login = f"s{i:04d}"
            if login not in have:
                accounts.add(login, nickname=f"student <{i}>", must_change=False)
                host.submit("course", login, "brain.c", "c11", brain(i))
        print(f"{args.users} accounts and brains: {time.monotonic() - t0:.1f} s", flush=True)
        want = args.users * (args.users - 1)
        last = 0.0
        while True:
            info = host.challenge("course")
            games = sum(s.games for s in host.standings("course")) // 2
            if games >= want and info.queued == 0 and info.playing == 0:
                break
            if time.monotonic() - last > 10:
                print(f"  {games:,}/{want:,} games, {info.queued:,} queued ({time.monotonic() - t0:.0f} s)", flush=True)
                last = time.monotonic()
            time.sleep(1)
        print(f"{games:,} games stored: {time.monotonic() - t0:.1f} s", flush=True)

    finally:
        host.stop()
        accounts.close()

    # The site in its own process, as `kothkit serve` runs (a server thread in this process would
    # share the GIL with the client and measure that).
    import subprocess

    # A new account each run: its row starts from no games.
    login, password = f"newcomer{int(time.time())}", "newcomer-password"
    accounts = Accounts(state)
    if accounts.user(login) is None:
        accounts.add(login, password, nickname=login.title(), must_change=False)
    accounts.close()
    proc = subprocess.Popen([sys.executable, "-m", "kothkit", "serve", str(course), "--state", str(state),
                             "--port", "0", "--no-access-log",  # (its stdout is not read after the start)
                             "--jobs", str(args.jobs)], stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        url = None
        for line in proc.stdout:
            m = re.search(r"serving .* at (http://\S+)/ ", line)
            if m:
                url = m.group(1)
                break
        if url is None:
            sys.exit("kothkit serve did not start")
        with httpx.Client(base_url=url, timeout=30, headers={"origin": url}) as c:
            for path in ("/c/course/", "/c/course/standings.json"):
                c.get(path)
                times = []
                for _ in range(args.requests):
                    t = time.perf_counter()
                    r = c.get(path)
                    times.append(time.perf_counter() - t)
                    assert r.status_code == 200
                print(f"GET {path}: {percentiles(times)}", flush=True)

            # Freshness: a new brain's games as an open Scoreboard's stream sees them.
            token = re.search(r'name="csrf" value="([^"]+)"', c.get("/login").text).group(1)
            r = c.post("/login", data={"csrf": token, "login": login, "password": password, "next": "/"})
            assert r.status_code == 303, r.text
            received: list[tuple[float, int]] = []
            # The Scoreboard names a brain by its public id, not by its author's login.
            from kothkit.serve.privacy import load_key, public_id
            from kothkit.serve.submissions import keyed_bot_name
            bot_id = public_id(load_key(state), keyed_bot_name(load_key(state), login))
            version = c.get("/c/course/standings.json").json()["version"]
            stop = threading.Event()

            def listen():
                with httpx.stream("GET", f"{url}/c/course/events", params={"since": str(version)},
                                  timeout=httpx.Timeout(30, read=None)) as s:
                    for line in s.iter_lines():
                        if line.startswith("data: "):
                            rows = json.loads(line[6:])["rows"]
                            n = next((r["games"] for r in rows if r["bot"] == bot_id), 0)
                            received.append((time.time(), n))
                        if stop.is_set():
                            return

            listener = threading.Thread(target=listen, daemon=True)
            listener.start()
            token = re.search(r'name="csrf" value="([^"]+)"', c.get("/c/course/submit").text).group(1)
            # A source of its own each run (a brain seen before would find its games stored).
            source = brain(args.users + 7) + f"/* {time.time()} */\n".encode()
            submitted = time.time()
            r = c.post("/c/course/submit", data={"csrf": token, "language": "c11"}, files={"file": ("brain.c", source)})
            assert r.status_code == 303, r.text
            t1 = time.monotonic()
            journal = state / "journals" / "course.sqlite"
            while True:
                # Every game of the new brain stored (read from the journal: the host's own count
                # of a brain's games may lag behind its build).
                with sqlite3.connect(f"file:{journal}?mode=ro", uri=True, timeout=30) as db:
                    (n,) = db.execute("SELECT count(*) FROM games WHERE players LIKE ? AND finished_at > ?",
                                      (f'%"{login}"%', submitted)).fetchone()
                if n >= 2 * args.users:
                    break
                if 'data-status="build-failed"' in c.get("/c/course/mine").text.split("</tr>")[1]:
                    sys.exit("the new brain did not build")
                if time.monotonic() - t1 > 3600:
                    sys.exit("the new brain's games did not end within an hour")
                time.sleep(0.5)
            time.sleep(2)
            stop.set()
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    db = sqlite3.connect(state / "journals" / "course.sqlite")
    stored = sorted(t for (t,) in db.execute("SELECT finished_at FROM games WHERE players LIKE ? AND finished_at > ?",
                                             (f'%"{login}"%', submitted)))
    db.close()
    delays = []
    for k, at in enumerate(stored, 1):
        seen = next((t for t, n in received if n >= k), None)
        if seen is not None:
            delays.append(max(0.0, seen - at))
    print(f"a new brain's {len(stored)} games: finished -> on the open Scoreboard: {percentiles(delays)}"
          f" ({len(received)} messages)", flush=True)
    if args.state is None:
        print(f"(state in {base}; delete it when done)")


if __name__ == "__main__":
    main()
