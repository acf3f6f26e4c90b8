"""Issue 38's test: the N-player game (lowbid, tables of four) played by ``kothkit run``, by ``kothkit
run --cluster local:2``, by the host that ``kothkit serve`` runs (on this machine and on a cluster,
``serve --cluster local:2``), and re-played by ``kothkit verify``,
to identical results: the same games (ids), every seat's place, points and verdict, the same moves."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from tests.serve.test_host import settled, until
from tests.serve.test_nseat_host import CRASHER, LOWBID, python_bot
from tests.serve.webserver import kothkit

TWO = """import sys
for line in sys.stdin:
    if line.startswith("BID "):
        print(2, flush=True)
    elif line.startswith("END"):
        break
"""


def challenge(root: Path) -> Path:
    d = root / "bids"
    for b in ("one", "tracker"):
        shutil.copytree(LOWBID / b, d / "bots" / b, ignore=shutil.ignore_patterns("__pycache__"))
    python_bot(d / "bots", "two", TWO)
    python_bot(d / "bots", "crasher", CRASHER)
    (d / "kothkit.toml").write_text('game = "lowbid"\nbots = ["bots"]\nrounds = 1\nseed = 21\n'
                                    '[rules]\nrounds = 3\nmax_bid = 4\n[serve]\nkind = "folder"\n')
    return d


def results(journal: Path) -> dict[str, tuple]:
    """Every game's result by id: seats, places, points, verdicts, reason and moves (no timings)."""
    with sqlite3.connect(journal) as db:
        rows = db.execute("SELECT id, players, seat_places, seat_points, seat_verdicts, winner, reason, moves "
                          "FROM games").fetchall()
    return {r[0]: (*r[1:7], [(m[0], m[1]) for m in json.loads(r[7])]) for r in rows}


def test_tables_played_by_run_cluster_host_and_verify_agree(tmp_path, hosts):
    ch = challenge(tmp_path)
    done = kothkit("run", ch, "--db", tmp_path / "run.sqlite", "-q", "--jobs", "2", cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    ran = results(tmp_path / "run.sqlite")
    # Four bots: four tables of four, every bot once in each seat; the crasher leaves each alone.
    assert len(ran) == 4 and all(json_len(r[0]) == 4 for r in ran.values())
    assert all('"crash"' in r[3] and r[3].count("null") == 3 for r in ran.values())

    done = kothkit("run", ch, "--db", tmp_path / "cluster.sqlite", "-q", "--cluster", "local:2", cwd=tmp_path,
                   timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert results(tmp_path / "cluster.sqlite") == ran

    # The host, on this machine's slots and on a cluster (serve --cluster local:2), each in a copy.
    on_cluster = shutil.copytree(ch, tmp_path / "cluster" / "bids")
    for folder, how in ((ch, {"jobs": 2}), (on_cluster, {"cluster": "local:2"})):
        host = hosts([folder], folder.parent / "state", **how)
        host.start()
        until(host, "bids", lambda h=host: len(h.games("bids")) == 4 and settled(h, "bids"), timeout=180)
        host.stop()
        assert results(folder / "kothkit.sqlite") == ran

    for journal in (tmp_path / "run.sqlite", ch / "kothkit.sqlite"):
        done = kothkit("verify", journal, cwd=tmp_path, timeout=300)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "4 games" in done.stdout and "identical" in done.stdout, done.stdout


def json_len(text: str) -> int:
    return len(json.loads(text))
