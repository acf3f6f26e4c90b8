"""``kothkit show`` of a game of more than two seats: the game re-played from the journal, Round by
Round and past the seats that left, every seat's place, points and verdict."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from nseat_game import INFO, program  # noqa: E402

from kothkit.playing.referee import play_game  # noqa: E402
from kothkit.results.archive import open_journal, transcript  # noqa: E402
from kothkit.store.journal import Journal, row_of  # noqa: E402
from kothkit.store.records import GameTask  # noqa: E402


def test_show_replays_a_game_of_more_seats_and_gives_every_seats_result(tmp_path):
    players = [program("a"), program("crasher", "crash3"), program("c"), program("chatter", "chatter2"),
               program("bad", "bad2")]
    task = GameTask(id="g" * 40, game=INFO.name, players=tuple(players), seed=1, limits=INFO.limits)
    record = play_game(task, info=INFO)
    db = tmp_path / "j.sqlite"
    with Journal(db) as j:
        j.add_rows([row_of(record)])
    t = transcript(open_journal(db), next(iter(open_journal(db).records)), info=INFO)
    assert t.problem is None, t.problem
    assert len(t.steps) == len(record.moves)
    done = subprocess.run([sys.executable, str(HERE / "nseat_game.py"), "show", str(db), "0"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "seat 1: crasher: place 3, 0 points, left: crash" in done.stdout
    assert "seat 3: chatter: place 3, 0 points, left: out-of-turn" in done.stdout
    assert "seat 4: bad: place 3, 0 points, left: invalid-reply" in done.stdout
    assert "seat 0: a: place 1, 6 points" in done.stdout and "problem" not in done.stdout

    listed = subprocess.run([sys.executable, str(HERE / "nseat_game.py"), "show", str(db), "--verdict", "crash"],
                            capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    assert "crasher, c, chatter" in listed.stdout and "crasher left: crash; chatter left: out-of-turn" in listed.stdout


def test_report_and_its_markdown_give_every_seats_result(tmp_path):
    players = [program("a"), program("crasher", "crash3"), program("c")]
    db = tmp_path / "j.sqlite"
    with Journal(db) as j:
        for k in range(2):
            seated = tuple(players[k:] + players[:k])
            task = GameTask(id=f"{k}" * 40, game=INFO.name, players=seated, seed=k, limits=INFO.limits, index=k)
            j.add_rows([row_of(play_game(task, info=INFO))])
    launcher = [sys.executable, str(HERE / "nseat_game.py")]
    done = subprocess.run([*launcher, "report", str(db), "--all", "--markdown"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "| # | bot | score | mean ± error | rating (μ ± σ) |" in done.stdout
    assert re.search(r"\| 3 \| crasher \| 0\.000 \| 0 ± 0 \| [0-9.]+ ± [0-9.]+ \| 0 \| 0 \| 2 \| 2 \| 2 crash \|",
                     done.stdout), done.stdout
    site = tmp_path / "site"
    done = subprocess.run([*launcher, "report", str(db), "--all", "--out", str(site)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    page = (site / "bots" / "crasher.html").read_text()
    assert "crasher left: crash" in page
    index = (site / "index.html").read_text()
    assert ">0-0-2<" in index  # the crosstable: the crasher placed below a, twice
