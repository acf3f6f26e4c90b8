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
    r = cli("run", ch, "--json", tmp_path / "out.json", check=True, timeout=180)
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
