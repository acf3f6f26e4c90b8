"""A challenge's ``[scoring]``: how its results count, over the game's own.  The same games are
played (the same ids: a run under another scoring reuses every game of the journal) and ranked
otherwise; a bad key or value is refused naming the file, its line and the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# lowbid (scored by the mean of its own points), scaled down: 4 bots, 2 tables each, 3 rounds a game.
LOWBID = f'''game = "lowbid"
bots = ["{ROOT / "plugins/lowbid/bots"}"]
seed = 11
rounds = 2
jobs = 1

[rules]
rounds = 3
max_bid = 10
'''


def write(tmp_path: Path, text: str) -> Path:
    ch = tmp_path / "challenge"
    ch.mkdir(exist_ok=True)
    (ch / "kothkit.toml").write_text(text)
    return ch


def run(cli, ch: Path, name: str) -> dict:
    out = ch.parent / f"{name}.json"
    done = cli("run", ch, "--json", out, "-q", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads(out.read_text())


def ranking(doc: dict) -> list[tuple[str, float]]:
    return [(s["bot"], s["points"]) for s in doc["standings"]]


def test_a_challenges_scoring_ranks_the_same_games_otherwise(cli, tmp_path):
    ch = write(tmp_path, LOWBID)
    default = run(cli, ch, "default")
    assert default["played"] == 8 and default["errors"] == []
    ids = sorted(g["id"] for g in default["games"])
    # First places alone, totalled: each bot's points are the tables it won outright.
    write(tmp_path, LOWBID + '\n[scoring]\ncounts = "wins"\nmean = false\n')
    wins = run(cli, ch, "wins")
    assert wins["played"] == 0 and sorted(g["id"] for g in wins["games"]) == ids  # the same games, reused
    won = {b: sum(1 for g in wins["games"] if g["seat_places"][g["players"].index(b)] == 1
                  and g["seat_places"].count(1) == 1) for b in ("dodger", "one", "spoiler", "tracker")}
    assert {bot: points for bot, points in ranking(wins)} == won
    # Points by placing: 5 for a first place, 1 for a second, none after; the game's mean kept.
    write(tmp_path, LOWBID + '\n[scoring]\ncounts = "placing"\nby_place = [5, 1]\n')
    placing = run(cli, ch, "placing")
    assert placing["played"] == 0 and sorted(g["id"] for g in placing["games"]) == ids
    by_place = {b: sum({1: 5, 2: 1}.get(g["seat_places"][g["players"].index(b)], 0) for g in placing["games"])
                for b in won}
    assert {bot: points for bot, points in ranking(placing)} == pytest.approx({b: p / 8 for b, p in by_place.items()})
    assert len({tuple(ranking(d)) for d in (default, wins, placing)}) == 3  # each counts otherwise
    # kothkit report of the challenge folder counts them as the challenge says.
    done = cli("report", ch, "--markdown", timeout=120)
    assert done.returncode == 0, done.stderr
    for bot, points in ranking(placing):
        assert any(bot in line and f"{points:g}" in line for line in done.stdout.splitlines()), done.stdout


@pytest.mark.parametrize("table, key", [
    ('counts = "most"', "counts"),
    ('forfeit = 1', "forfeit"),
    ('win = "three"', "win"),
    ('mean = 1', "mean"),
    ('by_place = [3, "two"]', "by_place"),
    ('tiebreak = ["luck"]', "tiebreak"),
    ('unit = "set"', "unit"),
    ('points = 3', "points"),
])
def test_a_bad_scoring_key_or_value_is_refused_naming_the_file_line_and_key(cli, tmp_path, table, key):
    text = LOWBID + "\n[scoring]\n" + table + "\n"
    ch = write(tmp_path, text)
    r = cli("run", ch)
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 1 and len(lines) == 1, r.stderr
    number = text.splitlines().index(table) + 1
    assert f"{ch / 'kothkit.toml'}:{number}:" in lines[0] and key in lines[0] and "[scoring]" in lines[0], lines[0]
    assert not (ch / "kothkit.sqlite").exists()


def test_the_scoring_travels_beside_the_registration():
    from kothkit.playing import challenge
    from kothkit.playing.settings import game_of
    from kothkit.plugins import get_game

    info = get_game("lowbid")
    ch = challenge.Challenge(path=Path("kothkit.toml"), game="lowbid", bots=(), scoring={"counts": "wins"})
    game = game_of(info, ch)
    assert game.info is info and info.scoring.counts == "points"  # the registration untouched
    assert game.scoring.counts == "wins" and game.scoring.mean == info.scoring.mean
    assert game_of(info).scoring is info.scoring


def test_the_hosts_scoreboard_counts_by_the_challenges_scoring(tmp_path, cli):
    """`kothkit serve` of a folder challenge with a [scoring] ranks its games as `kothkit run` does
    (which then reuses them all: the same ids)."""
    import time

    from tests.serve.webserver import Server, client

    ch = write(tmp_path, f'''game = "connect4_hidden"
bots = ["{ROOT / "plugins/connect4_hidden/bots"}"]
seed = 5
rounds = 1

[scoring]                   # the game's: +1/0/-1, the mean; here 3/1/0, totalled
win = 3
draw = 1
loss = 0
mean = false

[serve]
kind = "folder"
''')
    server = Server([ch], tmp_path / "state", tmp_path, jobs=2)
    try:
        with client(server) as web:
            deadline = time.monotonic() + 120
            while True:
                board = web.get("/c/challenge/standings.json").json()
                if sum(r.get("games", 0) for r in board["rows"]) == 20 * 2:  # 5 bots, both colours
                    break
                assert time.monotonic() < deadline, board
                time.sleep(0.5)
    finally:
        assert server.stop() == 0, server.text
    doc = run(cli, ch, "after")
    assert doc["played"] == 0
    assert [(r["bot"], float(r["points"])) for r in board["rows"]] == ranking(doc)  # (shown as text)
    for s in doc["standings"]:
        assert s["points"] == 3 * s["wins"] + s["draws"]


def test_a_gauntlet_of_the_challenge_counts_by_its_scoring(cli, tmp_path):
    """gauntlet at a challenge's tables: the candidate's mean by the challenge's count of its games
    (the same games: the second gauntlet reuses them all)."""
    ch = write(tmp_path, LOWBID)
    args = ("gauntlet", ch, "one", "--games", "2", "--seed", "3", "--jobs", "1", "--json")
    first = cli(*args, tmp_path / "points.json", timeout=300)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "scored by points" in first.stdout
    write(tmp_path, LOWBID + '\n[scoring]\ncounts = "wins"\n')
    again = cli(*args, tmp_path / "wins.json", timeout=300)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "scored by wins" in again.stdout and "(0 played, " in again.stdout
    points, wins = (json.loads((tmp_path / f"{n}.json").read_text()) for n in ("points", "wins"))
    assert 0 <= wins["mean"] <= 1 and wins["mean"] != points["mean"]
