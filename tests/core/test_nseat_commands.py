"""The commands with a game of more than two seats: those that cannot play it yet refuse it by name,
with exit code 2, never playing it with two seats instead (the schedule would pair its bots); debug,
play and check play it.  The game is tests/core/nseat_game.py's, installed in a real kothkit process
by its launcher."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import attrs
import pytest

from kothkit.playing.schedule import Schedule

HERE = Path(__file__).resolve().parent
BOT = str(HERE.parent / "bots" / "nseat" / "steady")


def kothkit(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(HERE / "nseat_game.py"), *args], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)


#: Whether the schedule seats tables (then ``run`` plays the game: tests/core/test_nseat_run.py).
TABLES = "seats" in attrs.fields_dict(Schedule)


@pytest.mark.parametrize(("command", "args"), [
    *([] if TABLES else [("run", ["--bots", BOT, "--db", "j.sqlite"])]),
    ("match", [BOT, BOT]),
    ("gauntlet --sprt", [BOT, "--bots", BOT, "--sprt", "0,10"]),
])
def test_commands_refuse_a_game_of_more_seats_by_name(tmp_path, command, args):
    done = kothkit(tmp_path, command.split()[0], "nseat_sum", *args)
    said = " ".join(done.stderr.split())
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert f"nseat_sum seats 3-8 players a game; `kothkit {command}" in said, said
    assert not (tmp_path / "j.sqlite").exists()  # nothing played, nothing journaled


def test_debug_plays_a_table_of_the_bot_and_its_opponents(tmp_path):
    done = kothkit(tmp_path, "debug", "nseat_sum", BOT, "--against", BOT, "--second")
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "result: 4 rounds" in out
    # The bot under debug in seat 1 (--second), its opponent (itself, renamed) in the others.
    assert "seat 1: steady: place 1, 6 points" in out and "seat 2: steady#2: place 1, 6 points" in out
    assert "seat 0: steady#1: place 1, 6 points" in out and "judge -> steady#2: ROUND 1" in out


def test_a_person_plays_one_seat_of_a_table_of_bots(tmp_path):
    done = subprocess.run([sys.executable, str(HERE / "nseat_game.py"), "play", "nseat_sum", "--against", BOT,
                           "--seat", "1", "--db", "play.sqlite"], input="x\n3\n3\n3\n3\n", capture_output=True,
                          text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "type a number from 1 to 9" in done.stdout  # a mistake, asked again
    assert "result: you placed 1 of 3 with 12 points: 4 rounds" in done.stdout
    assert "steady#2 played" in done.stdout
    import sqlite3

    with sqlite3.connect(tmp_path / "play.sqlite") as db:
        players, places = db.execute("SELECT players, seat_places FROM games").fetchone()
    assert players == '["steady", "you", "steady#2"]' and places == "[2, 1, 2]"
    # verify re-plays it: its id is a table's (schedule.table_slot), the bot's copy the bot renamed.
    done = kothkit(tmp_path, "verify", "play.sqlite", "--jobs", "1")
    assert done.returncode == 0 and "1 identical" in done.stdout, done.stdout + done.stderr


def test_check_plays_the_bot_in_every_seat_and_finds_its_crash(tmp_path):
    """A game of 3 to 8 seats: every seat of a table of three, the first and last of a table of
    eight, each run's title naming its table; the opening lets the bot answer three rounds."""
    done = kothkit(tmp_path, "check", "nseat_sum", BOT)
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    for title in ("as seat 2 of 3: a whole game against random players", "as seat 0 of 8: the opening  [3 replies",
                  "as seat 7 of 8: a whole game against random players"):
        assert title in out, out
    assert "of 8" not in out.replace("seat 0 of 8", "").replace("seat 7 of 8", "") and "passed all 10 runs" in out
    assert "(opens)" not in out and "never asked" not in out
    crashy = tmp_path / "crashy"
    shutil.copytree(BOT, crashy)
    (crashy / "bot.toml").write_text('name = "crashy"\ncommand = ["python3", "-S", "bot.py", "crash3"]\n')
    done = kothkit(tmp_path, "check", "nseat_sum", str(crashy))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "VERDICT: crash: exited with code 3" in done.stdout and "10 problems in 10 of 10 runs" in done.stdout


def test_check_finds_a_game_broken_at_its_most_seats_and_says_where(tmp_path):
    """nseat_narrow (tests/core/nseat_game.py) seats 3 to 6 but takes no number past the fourth
    seat: the check passes it at three seats and blames the game at six, each run saying its table."""
    done = kothkit(tmp_path, "check", "nseat_narrow", BOT)
    assert done.returncode == 1, done.stdout + done.stderr
    runs = [line for line in done.stdout.splitlines() if line.startswith(("  ok ", "  FAIL", "  -- "))]
    assert len(runs) == 10, runs
    assert all(r.startswith("  ok ") for r in runs if " of 3: " in r), runs
    failed = [r for r in runs if r.startswith("  FAIL")]
    assert len(failed) == 4 and all(" of 6: " in r for r in failed), runs
    assert ("scenario error: the game rejected the scripted reply" in done.stdout
            and "seat 4: the table has room for four; tell the game's author" in done.stdout)
    assert "4 broken scenarios (the game's, not your bot's) in 4 of 10 runs" in done.stdout


def test_gauntlet_seats_the_candidate_at_tables_of_the_field_and_resumes(tmp_path):
    field = tmp_path / "field"
    for name, mode in (("ann", "steady"), ("bob", "steady"), ("cat", "crash3"), ("dan", "steady")):
        shutil.copytree(BOT, field / name)
        (field / name / "bot.toml").write_text(f'name = "{name}"\ncommand = ["python3", "-S", "bot.py", "{mode}"]\n')
    args = ("gauntlet", "nseat_sum", BOT, "--bots", str(field), "--games", "2", "--seed", "3", "--jobs", "1",
            "--db", "g.sqlite", "--json", "g.json")
    done = kothkit(tmp_path, *args)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "at tables of 5 with the field (4 bots)" in done.stdout
    assert "steady: 6 ± 0 per game over 2 games (2 played, 0 reused)" in done.stdout
    assert "vs cat: placed above 2, level 0, below 0" in done.stdout
    assert "vs ann: placed above 0, level 2, below 0" in done.stdout
    again = kothkit(tmp_path, *args)
    assert again.returncode == 0 and "over 2 games (0 played, 2 reused)" in again.stdout
    doc = json.loads((tmp_path / "g.json").read_text())
    assert doc["mean"] == 6.0 and doc["against"]["cat"] == {"above": 2, "level": 0, "below": 0}
