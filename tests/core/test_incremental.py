"""Incremental re-runs: a changed bot replays only its own games; a removed bot drops out.

A game's id comes from the game, its settings, both bots' content hashes and
its seed slot, so re-running a tournament on the same journal replays exactly
the games whose id is new.  Each step is a real ``kothkit run`` on one journal,
without ``--seed`` after the first (the journal's last seed is reused).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ROOT / "plugins" / "gomoku_swap2" / "bots"


def run(cli, bots: Path, db: Path, out: Path, *extra: str) -> tuple[dict, str]:
    r = cli("run", "gomoku_swap2", "--bots", bots, "--jobs", "2", "--move-time", "5", "--db", db, "--json", out,
            *extra, timeout=300, check=True)
    return json.loads(out.read_text()), r.stdout


def test_only_a_changed_bots_games_are_played_again(cli, tmp_path):
    bots = tmp_path / "bots"
    shutil.copytree(BUNDLED, bots, ignore=shutil.ignore_patterns(".kothkit-build", "__pycache__"))
    db, out = tmp_path / "journal.sqlite", tmp_path / "out.json"

    first, text = run(cli, bots, db, out, "--seed", "11")
    assert (first["played"], first["reused"]) == (6, 0)
    assert "games: 6 played, 0 reused, 6 in all" in text
    ids = {g["id"]: g for g in first["games"]}

    again, text = run(cli, bots, db, out)
    assert again["seed"] == 11  # the journal's last seed
    assert (again["played"], again["reused"]) == (0, 6)
    assert "games: 0 played, 6 reused, 6 in all" in text
    assert again["games"] == first["games"] and again["standings"] == first["standings"]

    with open(bots / "threat" / "bot.py", "a") as f:
        f.write("\n# a new version: same play, new content hash\n")
    changed, text = run(cli, bots, db, out)
    assert (changed["played"], changed["reused"]) == (4, 2)
    assert "games: 4 played, 2 reused, 6 in all" in text
    for g in changed["games"]:
        if "threat" in g["players"]:
            assert g["id"] not in ids  # a new game: played again
        else:
            assert ids[g["id"]] == g  # the same game, reused as it was

    shutil.rmtree(bots / "scout")
    removed, text = run(cli, bots, db, out)
    assert (removed["played"], removed["reused"]) == (0, 2)
    assert {s["bot"] for s in removed["standings"]} == {"threat", "greedy"}
    assert all(s["games"] == 2 for s in removed["standings"])
    assert all("scout" not in g["players"] for g in removed["games"])


def test_a_game_whose_code_changed_is_played_again(cli, tmp_path):
    """A copy of the third-party m,n,k plugin, found through its entry point on PYTHONPATH as an
    editable install is: its games are reused until its rules code (or its version) changes."""
    site = tmp_path / "site"
    shutil.copytree(ROOT / "tests" / "thirdparty" / "mnk" / "src" / "kothkit_mnk", site / "kothkit_mnk",
                    ignore=shutil.ignore_patterns("__pycache__"))
    dist = site / "kothkit_mnk-1.0.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: kothkit-mnk\nVersion: 1.0.0\n")
    (dist / "entry_points.txt").write_text("[kothkit]\nmnk = kothkit_mnk.plugin\n")
    env = {"PYTHONPATH": str(site)}

    def mnk(*extra):
        r = cli("run", "mnk", "--db", tmp_path / "mnk.sqlite", "--jobs", "1", "--quiet", *extra, env=env,
                timeout=120, check=True)
        return r.stdout

    assert "games: 2 played, 0 reused, 2 in all" in mnk("--seed", "3")
    text = mnk()
    assert "games: 0 played, 2 reused, 2 in all" in text and "will be played again" not in text

    rules = site / "kothkit_mnk" / "rules.py"
    code = rules.read_text()
    assert "((0, 1), (1, 0), (1, 1), (1, -1))" in code
    rules.write_text(code.replace("((0, 1), (1, 0), (1, 1), (1, -1))", "((0, 1), (1, 0))"))  # no diagonals
    text = mnk()
    assert "mnk's code changed since the journal's games: 2 games will be played again" in text
    assert "games: 2 played, 0 reused, 2 in all" in text
    assert "games: 0 played, 2 reused, 2 in all" in mnk()

    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: kothkit-mnk\nVersion: 1.0.1\n")
    text = mnk()
    assert "mnk is now kothkit-mnk 1.0.1 (the journal's games: kothkit-mnk 1.0.0): 2 games will be played again" in text
    assert "games: 2 played, 0 reused, 2 in all" in text
