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
