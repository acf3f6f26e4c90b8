"""``report``, ``show`` and ``export`` count and rank the games as ``kothkit run`` does: the current
standings' games, ranked with the game's tie-breaks; a match's games and superseded games apart.

Real tournaments on real journals: Swap2 program bots that crash at once (a tie broken by their
``submitted`` dates), and connect4 function bots (a run, a run with a new seed, a match)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.results.conftest import kothkit
from tests.results.test_report import markdown_table


def _crasher(folder: Path, name: str, submitted: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text(f'name = "{name}"\ncommand = ["python3", "bot.py"]\nsubmitted = "{submitted}"\n')
    (folder / "bot.py").write_text("import sys\nsys.exit(1)\n")
    return folder


def test_report_breaks_ties_as_run_does(tmp_path):
    # aaa and zzz each lose to greedy and beat each other once (the opener crashes): a tie on
    # points that Swap2 breaks by the earlier `submitted` date, zzz's, not by name.
    bots = tmp_path / "bots"
    _crasher(bots / "aaa", "aaa", "2020-02-02")
    _crasher(bots / "zzz", "zzz", "2020-01-01")
    db = tmp_path / "j.sqlite"
    kothkit("run", "gomoku_swap2", "--bots", bots / "aaa", "--bots", bots / "zzz", "--bots", "greedy",
            "--seed", "3", "--jobs", "2", "--db", db, "--json", tmp_path / "r.json", "-q", cwd=tmp_path)
    doc = json.loads((tmp_path / "r.json").read_text())
    order = [s["bot"] for s in doc["standings"]]
    assert order == ["greedy", "zzz", "aaa"], doc["standings"]
    rows = markdown_table(kothkit("report", db, "--markdown", cwd=tmp_path).stdout)
    assert [r["bot"] for r in rows] == order
    kothkit("report", db, "--out", tmp_path / "site", cwd=tmp_path)
    index = (tmp_path / "site" / "index.html").read_text()
    leaderboard = index[index.index("<h2>Leaderboard"):index.index("</table>", index.index("<h2>Leaderboard"))]
    assert re.findall(r'<a href="bots/[^"]+">([^<]+)</a>', leaderboard) == order
    # The likelihood-of-superiority matrix: aaa and zzz have one Elo, and are in the leaderboard's
    # order there too (the earlier submission first), not by name.
    los = index[index.index("<h2>Likelihood of superiority"):]
    los = los[:los.index("</table>")]
    assert re.findall(r"<tr><th>([^<]+)</th>", los) == order


def test_report_show_and_export_count_the_current_standings_and_keep_matches_apart(tmp_path):
    db = tmp_path / "j.sqlite"
    run = ("run", "connect4_hidden", "--bots", "deducer", "--bots", "constant_player", "--rounds", "1",
           "--jobs", "1", "--db", db, "-q")
    kothkit(*run, "--seed", "1", cwd=tmp_path)
    # A new seed: the first run's two games are superseded.
    kothkit(*run, "--seed", "2", "--json", tmp_path / "r.json", cwd=tmp_path)
    # A match of the same bots in the same journal: four games of its own, numbered 0 to 3.
    kothkit("match", "connect4_hidden", "deducer", "constant_player", "--games", "4", "--seed", "9", "--jobs", "1",
            "--db", db, "-q", cwd=tmp_path)
    doc = json.loads((tmp_path / "r.json").read_text())
    assert [s["games"] for s in doc["standings"]] == [2, 2]

    rows = markdown_table(kothkit("report", db, "--markdown", cwd=tmp_path).stdout)
    assert [(r["bot"], int(r["games"])) for r in rows] == [(s["bot"], s["games"]) for s in doc["standings"]]
    every = markdown_table(kothkit("report", db, "--markdown", "--all", cwd=tmp_path).stdout)
    assert [int(r["games"]) for r in every] == [8, 8]

    shown = kothkit("show", db, cwd=tmp_path).stdout
    assert f"2 of 2 games of the current standings in {db}" in shown
    assert "4 of 4 games of matches and gauntlets" in shown
    assert "2 superseded games of earlier runs not listed: --all lists them too" in shown
    with_all = kothkit("show", db, "--all", cwd=tmp_path).stdout
    assert "2 of 2 superseded games (of earlier runs" in with_all

    # A game number names one game: the current standings' game 0, not the match's or the first run's.
    current = {g["index"]: g["id"] for g in doc["games"]}
    one = kothkit("show", db, "0", cwd=tmp_path)
    assert current[0] in one.stdout
    out = kothkit("export", db, "0", "--out", "-", cwd=tmp_path).stdout
    assert json.loads(out)["id"] == current[0]

    kothkit("export", db, "--out", tmp_path / "now", cwd=tmp_path)
    assert len(list((tmp_path / "now").iterdir())) == 2
    kothkit("export", db, "--all", "--out", tmp_path / "all", cwd=tmp_path)
    assert len(list((tmp_path / "all").iterdir())) == 8


def test_verify_names_one_stateful_bot_in_the_singular(tmp_path):
    # A legacy meta file makes a bot stateful; Kaito is the only one here (it crashes at once: quick games).
    kaito = tmp_path / "kaito"
    kaito.mkdir()
    (kaito / "meta").write_text("Kaito\npython3\nbot.py\n0\n")
    (kaito / "bot.py").write_text("import sys\nsys.exit(1)\n")
    db = tmp_path / "j.sqlite"
    kothkit("run", "gomoku_swap2", "--bots", kaito, "--bots", "greedy", "--seed", "4", "--jobs", "2", "--db", db,
            "-q", cwd=tmp_path)
    done = kothkit("verify", db, cwd=tmp_path, check=False)
    assert "note: Kaito keeps files between games; its replays start from a copy of the files as they are now (the real folder is left as it is)" in done.stderr, (
        done.stdout + done.stderr)
    assert "verified 2 games: 2 identical, 0 differ, 0 not verifiable" in done.stdout
