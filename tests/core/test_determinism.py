"""Determinism: the same seed gives the same games at --jobs 1, 2 and 4, with a stateful bot.

The ``diary`` bot keeps a file in its folder, appends every game it plays, and
plays differently depending on how many games it has seen: its results depend
on the order it sees its games.  kothkit never runs a stateful bot's games at
once and gives them in schedule order, so every game record (moves included),
the standings and the diary itself come out identical whatever ``--jobs``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kothkit.store.journal import Journal

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "plugins" / "gomoku_swap2" / "bots"

DIARY = r'''
import os, re, sys

os.makedirs("state", exist_ok=True)
path = os.path.join("state", "diary.txt")
seen = open(path).read().splitlines() if os.path.exists(path) else []
with open(path, "a") as f:
    f.write("%d %s %s\n" % (len(seen), sys.argv[1], sys.argv[2]))
shift = len(seen) % 5  # how it plays depends on how many games it has played before


def reply(line):
    tag, _, rest = line.partition(" ")
    if tag == "A":
        return "(%d,0) (%d,2) (%d,1)" % (shift, shift, shift)
    if tag in ("B", "C"):
        return "B" if shift % 2 else "W" if tag == "C" else "(14,14) (13,13)"
    taken = {(int(x), int(y)) for x, y in re.findall(r"\(\((\d+),(\d+)\)", rest)}
    cells = [(x, y) for y in range(15) for x in range(15) if (x, y) not in taken]
    return "(%d,%d)" % cells[(shift * 7) % len(cells)]


for raw in iter(sys.stdin.readline, ""):
    if raw.startswith("EXIT"):
        break
    sys.stdout.write(reply(raw.strip()) + "\n")
    sys.stdout.flush()
'''


def arena(folder: Path) -> Path:
    bots = folder / "bots"
    shutil.copytree(BUNDLED, bots, ignore=shutil.ignore_patterns(".kothkit-build", "__pycache__"))
    diary = bots / "diary"
    diary.mkdir()
    (diary / "bot.py").write_text(DIARY)
    (diary / "bot.toml").write_text('name = "diary"\ncommand = ["python3", "-S", "bot.py"]\nstateful = true\n')
    return bots


def untimed(games: list[dict]) -> list[dict]:
    return [{k: v for k, v in g.items() if "time" not in k} for g in games]


@pytest.mark.slow
def test_results_do_not_depend_on_jobs(cli, tmp_path):
    runs = {}
    for jobs in (1, 2, 4):
        bots = arena(tmp_path / f"jobs{jobs}")
        db, out = tmp_path / f"jobs{jobs}.sqlite", tmp_path / f"jobs{jobs}.json"
        cli("run", "gomoku_swap2", "--bots", bots, "--seed", "2024", "--rounds", "2", "--jobs", str(jobs),
            "--move-time", "5", "--db", db, "--json", out, timeout=300, check=True)
        with Journal(db) as j:
            records = sorted(r.result_key() for r in j.all())
        runs[jobs] = (json.loads(out.read_text()), records, (bots / "diary" / "state" / "diary.txt").read_text())
    doc, records, diary = runs[1]
    assert len(records) == 4 * 3 * 2 and doc["played"] == len(records)
    assert len(diary.splitlines()) == 3 * 2 * 2  # the diary saw each of its games once, in order
    for jobs in (2, 4):
        other, other_records, other_diary = runs[jobs]
        assert other["standings"] == doc["standings"]
        assert untimed(other["games"]) == untimed(doc["games"])
        assert other_records == records
        assert other_diary == diary
