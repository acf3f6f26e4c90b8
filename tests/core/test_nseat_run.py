"""``kothkit run`` of a game of more than two seats (issue 38): tables of the field, a bot that crashes
losing alone in each of its games, every seat's result in the journal and in ``--json``, the table
of standings with each bot's mean and its error; and ``kothkit verify`` re-playing the journal to the
same results (a seat's place altered in the journal: a difference)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import attrs
import pytest

from kothkit.playing.schedule import Schedule
from kothkit.store.journal import Journal

HERE = Path(__file__).resolve().parent
STEADY = HERE.parent / "bots" / "nseat" / "steady"

pytestmark = pytest.mark.skipif("seats" not in attrs.fields_dict(Schedule),
                                reason="the schedule seats no tables yet (kothkit.playing.schedule.Schedule.seats)")


def test_run_plays_tables_and_a_crash_loses_alone(tmp_path):
    bots = tmp_path / "bots"
    for name, mode in (("ann", "steady"), ("bob", "steady"), ("cat", "crash3"), ("dan", "steady")):
        shutil.copytree(STEADY, bots / name)
        (bots / name / "bot.toml").write_text(f'name = "{name}"\ncommand = ["python3", "-S", "bot.py", "{mode}"]\n')
    db, doc = tmp_path / "j.sqlite", tmp_path / "out.json"
    done = subprocess.run([sys.executable, str(HERE / "nseat_game.py"), "run", "nseat_sum", "--bots", str(bots),
                           "--db", str(db), "--json", str(doc), "-q", "--jobs", "1", "--seed", "5"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "mean ± error" in done.stdout and "cat left the game: crash" in done.stdout
    with Journal(db) as j:
        games = list(j.all())
    assert games and all(len(g.players) == 4 for g in games)
    for g in games:
        mine = g.players.index("cat")
        assert g.seat_verdicts[mine] == "crash" and g.seat_places[mine] == 4 and g.seat_points[mine] == 0.0
        assert [v for i, v in enumerate(g.seat_verdicts) if i != mine] == [None] * 3 and g.reason == "4 rounds"
    standings = {s["bot"]: s for s in json.loads(doc.read_text())["standings"]}
    assert standings["ann"]["mean"] == 6.0 and standings["cat"]["mean"] == 0.0
    assert standings["cat"]["rank"] == 4
    # verify: every game re-played to the same result, every seat's; an altered place differs.
    launcher = [sys.executable, str(HERE / "nseat_game.py")]
    done = subprocess.run([*launcher, "verify", str(db), "--jobs", "1"], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"verified {len(games)} games: {len(games)} identical, 0 differ, 0 not verifiable" in done.stdout
    import sqlite3

    with sqlite3.connect(db) as c:
        gid, places = c.execute("SELECT id, seat_places FROM games ORDER BY idx").fetchone()
        c.execute("UPDATE games SET seat_places = ? WHERE id = ?", (json.dumps(sorted(json.loads(places))), gid))
    done = subprocess.run([*launcher, "verify", str(db), "--jobs", "1"], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)
    assert done.returncode == 1 and "1 differ" in done.stdout, done.stdout + done.stderr


def test_run_rates_tables_by_openskill_the_same_at_any_jobs(tmp_path):
    """A game of more seats is rated by openskill (each bot's skill ± sigma and ordinal, in the table
    and in --json, instead of a note that such games are not rated), with the crosstable of places;
    the ratings are those of the games in schedule order: the same at --jobs 1 and 2; the progress
    counts the schedule's games."""
    funcs = HERE.parent / "bots" / "nseat" / "funcs.py"
    docs, outs = [], []
    for jobs in ("1", "2"):
        doc = tmp_path / f"out{jobs}.json"
        done = subprocess.run([sys.executable, str(HERE / "nseat_game.py"), "run", "nseat_sum",
                               *(f"--bots={funcs}:{f}" for f in ("low", "high", "middle", "steady")),
                               "--db", str(tmp_path / f"j{jobs}.sqlite"), "--json", str(doc), "--jobs", jobs,
                               *(["-q"] if jobs == "1" else ["--progress-every", "0.01"]),
                               "--seed", "7", "--trusted"],
                              capture_output=True, text=True, timeout=300, cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
        docs.append(json.loads(doc.read_text()))
        outs.append(done.stdout)
    out, doc = outs[0], docs[0]
    assert "not rated" not in out and "skill ± σ" in out and "ordinal" in out and "placed above" in out
    skills = doc["skills"]
    assert [k["bot"] for k in skills] == ["high", "middle", "steady", "low"]
    assert all(k["games"] == doc["total"] for k in skills) and skills[0]["mu"] > 25 > skills[-1]["mu"]
    assert all(0 < k["sigma"] < 25 / 3 for k in skills)
    standings = {s["bot"]: s for s in doc["standings"]}
    assert standings["high"]["ordinal"] == skills[0]["ordinal"] and "elo" not in standings["high"]
    above = doc["placed_above"]
    assert above["high"]["low"] == [doc["total"], doc["total"]] and above["low"]["high"] == [0, doc["total"]]
    assert "ratings" not in doc
    assert docs[1]["skills"] == skills and docs[1]["placed_above"] == above
    # The progress counts the tables' games (4 bots, 1 round: 4 games), not a round robin's 12.
    assert f"progress: {doc['total']}/{doc['total']} games" in outs[1] and doc["total"] == 4, outs[1]
