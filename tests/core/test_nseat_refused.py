"""A game of more than two seats is refused by name, with exit code 2, by every command that cannot
play it yet: never played with two seats instead (the schedule would pair its bots).  The game is
tests/core/nseat_game.py's, installed in a real kothkit process by its launcher."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
BOT = str(HERE.parent / "bots" / "nseat" / "steady")


def kothkit(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(HERE / "nseat_game.py"), *args], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)


@pytest.mark.parametrize(("command", "args"), [
    ("run", ["--bots", BOT, "--db", "j.sqlite"]),
    ("debug", [BOT]),
    ("match", [BOT, BOT]),
    ("gauntlet", [BOT, "--bots", BOT]),
    ("play", ["--against", BOT]),
    ("check", [BOT]),
])
def test_commands_refuse_a_game_of_more_seats_by_name(tmp_path, command, args):
    done = kothkit(tmp_path, command, "nseat_sum", *args)
    said = " ".join(done.stderr.split())
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert f"nseat_sum seats 3-8 players a game; `kothkit {command}`" in said, said
    assert not (tmp_path / "j.sqlite").exists()  # nothing played, nothing journaled


def test_journals_and_challenges_of_a_game_of_more_seats_are_refused_too(tmp_path):
    sys.path.insert(0, str(HERE))
    from nseat_game import INFO, program

    from kothkit.playing.referee import play_game
    from kothkit.store.journal import Journal, row_of
    from kothkit.store.records import GameTask

    task = GameTask(id="g1", game=INFO.name, players=tuple(program(f"p{i}") for i in range(3)), seed=1,
                    limits=INFO.limits)
    with Journal(tmp_path / "j.sqlite") as j:
        j.add_rows([row_of(play_game(task, info=INFO))])
    for command in ("verify", "report"):
        done = kothkit(tmp_path, command, "j.sqlite")
        said = " ".join(done.stderr.split())
        assert done.returncode == 2 and f"nseat_sum seats 3-8 players a game; `kothkit {command}`" in said, said
    (tmp_path / "ch").mkdir()
    (tmp_path / "ch" / "kothkit.toml").write_text('game = "nseat_sum"\n')
    done = kothkit(tmp_path, "serve", "ch", "--state", "state", "--port", "0")
    said = " ".join(done.stderr.split())
    assert done.returncode == 2 and "nseat_sum seats 3-8 players a game; `kothkit serve`" in said, said
