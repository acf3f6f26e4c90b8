"""Real tournaments of the bundled Swap2 bots through the kothkit CLI (real processes, real files)."""

import json
from collections import Counter
from pathlib import Path

from kothkit_gomoku_swap2.codec import tokenize

SCOUT = Path(__file__).resolve().parents[2] / "plugins" / "gomoku_swap2" / "bots" / "scout"

BUNDLED = {"threat", "scout", "greedy"}


def run(cli, tmp_path, *extra, tag="out"):
    out = tmp_path / f"{tag}.json"
    r = cli("run", "gomoku_swap2", "--seed", "20180823", "--move-time", "5", "--json", str(out),
            "--db", str(tmp_path / f"{tag}.sqlite"), "--quiet", *extra, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    return json.loads(out.read_text()), r.stdout


def test_bundled_bots_play_a_full_round_robin(cli, tmp_path):
    doc, stdout = run(cli, tmp_path, "--jobs", "2")
    assert doc["game"] == "gomoku_swap2" and doc["seed"] == 20180823 and doc["errors"] == []
    games = doc["games"]
    # three pairs, two games each, each bot of a pair opening once
    assert len(games) == 6
    openers = Counter(tuple(g["players"]) for g in games)
    for a, b in {tuple(sorted(g["players"])) for g in games}:
        assert openers[(a, b)] == 1 and openers[(b, a)] == 1
    for g in games:
        assert g["fault"] is None and g["verdict"] is None, g
        assert g["reason"] in ("five in a row", "board full")
        assert len(tokenize(g["moves"][0])) == 3  # the opener's three stones come first
    rows = doc["standings"]
    assert {s["bot"] for s in rows} == BUNDLED
    assert sum(s["points"] for s in rows) == 2 * len(games)  # every game hands out 2 points
    assert [s["rank"] for s in rows] == [1, 2, 3]
    assert rows[0]["bot"] == "threat" and rows[0]["wins"] >= 3
    for s in rows:
        assert s["points"] == 2 * s["wins"] + s["draws"] and s["games"] == 4
    assert "threat" in stdout


def test_same_seed_same_tournament_at_any_jobs(cli, tmp_path):
    one, _ = run(cli, tmp_path, "--jobs", "1", tag="one")
    two, _ = run(cli, tmp_path, "--jobs", "2", tag="two")

    def key(doc):
        return sorted((tuple(g["players"]), g["winner"], tuple(g["moves"])) for g in doc["games"])

    assert key(one) == key(two)
    assert one["standings"] == two["standings"]


def test_debug_shows_the_whole_transcript(cli, tmp_path):
    r = cli("debug", "gomoku_swap2", str(SCOUT), "--against", "threat", "--seed", "3", timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    text = " ".join(r.stdout.split())
    assert "A []" in text and "EXIT" in text and "scout" in text and "threat" in text


def test_text_from_bots_is_printed_as_it_is_and_tie_is_a_reserved_name(cli, tmp_path):
    # A build command full of brackets, a bot named like rich markup (refused: names are plain
    # words, and the refusal quotes it), and a bot named TIE (Swap2 ends a drawn game with
    # "EXIT TIE"): the first plays, its build printed as is; the others are left out, saying why.
    import shutil

    threat = Path(__file__).resolve().parents[2] / "plugins" / "gomoku_swap2" / "bots" / "threat"
    bots = tmp_path / "bots"
    for folder, name, build in (("marked", "x", '["python3", "-c", "import sys; [sys.exit(0)]"]'),
                                ("markup", "[bold]y[/bold]", None), ("tie", "TIE", None), ("plain", "plain", None)):
        shutil.copytree(threat, bots / folder, ignore=shutil.ignore_patterns("__pycache__"))
        toml = (threat / "bot.toml").read_text().replace('name = "threat"', f"name = '{name}'")
        (bots / folder / "bot.toml").write_text(toml + (f"build = {build}\n" if build else ""))
    r = cli("run", "gomoku_swap2", "--bots", bots, "--rounds", "1", "--seed", "2", "--jobs", "1",
            "--db", tmp_path / "j.sqlite", check=True, timeout=300)
    assert "-c import sys; [sys.exit(0)]" in r.stderr and "building x: " in r.stderr, r.stderr  # python3: the judge's
    assert "got '[bold]y[/bold]'" in r.stderr, r.stderr
    assert "'TIE' is reserved" in r.stderr and str(bots / "tie") in r.stderr, r.stderr
    assert [line for line in r.stdout.splitlines() if "│ x " in line], r.stdout  # its row of the standings
    assert "games: 2 played" in r.stdout
