"""Challenge files: kothkit.toml runs a tournament; every wrong key or value names file and line."""

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def write(tmp_path: Path, text: str) -> Path:
    ch = tmp_path / "challenge"
    ch.mkdir(exist_ok=True)
    (ch / "kothkit.toml").write_text(text)
    return ch


GOOD = f'''game = "gomoku_swap2"
bots = ["{ROOT / "plugins/gomoku_swap2/bots"}"]
seed = 7
games_per_pair = 2
jobs = 1

[limits]
move_time = 3.0
'''


def test_challenge_runs_and_flags_override(cli, tmp_path):
    ch = write(tmp_path, GOOD)
    cli("run", ch, "--json", tmp_path / "out.json", check=True, timeout=180)
    doc = json.loads((tmp_path / "out.json").read_text())
    assert doc["seed"] == 7 and doc["game"] == "gomoku_swap2"
    assert (ch / "kothkit.sqlite").is_file()
    n = len(doc["standings"])
    assert doc["total"] == n * (n - 1)
    cli("run", ch, "--seed", "8", "--json", tmp_path / "out2.json", check=True, timeout=180)
    assert json.loads((tmp_path / "out2.json").read_text())["seed"] == 8


def test_unknown_key_names_line(cli, tmp_path):
    ch = write(tmp_path, "colour = 1\n" + GOOD)
    r = cli("run", ch)
    assert r.returncode == 1 and f"{ch / 'kothkit.toml'}:1:" in r.stderr and "colour" in r.stderr


def test_bad_limit_names_line(cli, tmp_path):
    ch = write(tmp_path, GOOD.replace("move_time = 3.0", "move_time = -1"))
    r = cli("run", ch)
    assert r.returncode == 1 and ":8:" in r.stderr and "move_time" in r.stderr


def test_unknown_limit_and_odd_games(cli, tmp_path):
    r = cli("run", write(tmp_path, GOOD + "speed = 3\n"))
    assert r.returncode == 1 and ":9:" in r.stderr and "speed" in r.stderr
    r = cli("run", write(tmp_path, GOOD.replace("games_per_pair = 2", "games_per_pair = 3")))
    assert r.returncode == 1 and ":4:" in r.stderr and "even" in r.stderr


def test_unknown_rule(cli, tmp_path):
    r = cli("run", write(tmp_path, GOOD + "[rules]\nboard = 19\n"))
    assert r.returncode == 1 and ":10:" in r.stderr and "board" in r.stderr


def test_unknown_game(cli):
    r = cli("run", "no_such_game")
    assert r.returncode == 1 and "no game named 'no_such_game'" in r.stderr


import pytest  # noqa: E402


@pytest.mark.parametrize("line, key", [
    ("move_time = nan", "move_time"),
    ("move_time = inf", "move_time"),
    ("memory_mb = 300.5", "memory_mb"),
    ("tolerance = -10.0", "tolerance"),
    ("seed = 18446744073709551617", "seed"),  # 2**64 + 1: more than SQLite's integers hold
])
def test_a_bad_value_is_one_line_naming_file_and_key_and_changes_nothing(cli, tmp_path, line, key):
    # seed and move_time are in GOOD already; the other limits go at its end, in [limits].
    text = {"seed": GOOD.replace("seed = 7", line), "move_time": GOOD.replace("move_time = 3.0", line)}.get(
        key, GOOD + line + "\n")
    ch = write(tmp_path, text)
    r = cli("run", ch)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1, r.stderr
    number = text.splitlines().index(line) + 1
    assert f"{ch / 'kothkit.toml'}:{number}:" in lines[0] and key in lines[0], lines[0]
    assert not (ch / "kothkit.sqlite").exists()


@pytest.mark.parametrize("flag, value", [("--move-time", "nan"), ("--move-time", "inf"), ("--game-time", "-1"),
                                         ("--seed", str(2**64 + 1)), ("--jobs", "0"), ("--rounds", "-3")])
def test_a_bad_flag_is_one_line_naming_it_and_changes_nothing(cli, tmp_path, flag, value):
    r = cli("run", "gomoku_swap2", flag, value, "--db", tmp_path / "j.sqlite")
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1 and flag in lines[0], r.stderr
    assert not (tmp_path / "j.sqlite").exists()
