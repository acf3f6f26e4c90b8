"""Every command that plays takes a challenge folder and ``--rules`` as ``kothkit run`` does, and a bad
``[rules]`` value is reported at its line.  Real commands on a classic12 challenge with real bots."""

from __future__ import annotations

import json
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STEADY = ROOT / "tests" / "bots" / "classic12" / "steady"


def _challenge(tmp_path: Path, rules: str) -> Path:
    ch = tmp_path / "ch"
    (ch / "bots").mkdir(parents=True)
    shutil.copytree(STEADY, ch / "bots" / "steady")
    (ch / "kothkit.toml").write_text('game = "gomoku_classic12"\nbots = ["bots"]\nseed = 3\n\n[limits]\n'
                                     f'move_time = 1.0\n\n[rules]\n{rules}\n')
    return ch


def test_a_bad_rules_value_is_reported_at_its_line(cli, tmp_path):
    ch = _challenge(tmp_path, 'opening = "sideways"')
    for args in (("run", ch), ("match", ch, "steady", "threat"), ("debug", ch, "threat"), ("check", ch, "threat")):
        done = cli(*args)
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        assert f"{ch / 'kothkit.toml'}:9: bad [rules] value opening = 'sideways'" in done.stderr, (args, done.stderr)
    bad = cli("debug", "gomoku_classic12", "threat", "--rules", "opening=sideways")
    assert bad.returncode == 1 and "--rules opening='sideways': bad value" in bad.stderr, bad.stderr
    unknown = cli("play", "gomoku_classic12", "--rules", "komi=7")
    assert unknown.returncode == 1 and "--rules komi: unknown rule 'komi' for gomoku_classic12" in unknown.stderr


def test_match_debug_play_and_check_take_a_challenge_and_its_rules(cli, tmp_path):
    ch = _challenge(tmp_path, 'opening = "empty"')
    # debug: the challenge's rules (an empty board), its bots as opponents.
    shown = cli("debug", ch, "threat", "--seed", "2", "--no-boards", check=True).stdout
    assert "steady" in shown
    # match: in the challenge's journal, under its rules, or --rules over them.
    cli("match", ch, "threat", "steady", "--games", "2", "--jobs", "1", "-q", check=True)
    cli("match", ch, "threat", "steady", "--games", "2", "--jobs", "1", "-q", "--rules", 'opening="center4"',
        "--db", tmp_path / "m.sqlite", check=True)
    for journal, opening in ((ch / "kothkit.sqlite", "empty"), (tmp_path / "m.sqlite", "center4")):
        with closing(sqlite3.connect(journal)) as db:
            (settings,) = db.execute("SELECT settings FROM runs").fetchone()
            assert db.execute("SELECT COUNT(*) FROM games").fetchone()[0] == 2
        assert json.loads(settings)["rules"] == {"opening": opening}
        assert json.loads(settings)["limits"]["move_time"] == 1.0  # the challenge's [limits]
    # play: the challenge's game; the end of input leaves the game (exit 0, nothing stored).
    left = cli("play", ch, "--against", "threat", "--db", tmp_path / "p.sqlite")
    assert left.returncode == 0 and "you left the game: nothing stored" in left.stdout, left.stdout + left.stderr
    assert "gomoku_classic12: you" in left.stdout
    checked = cli("check", ch, "threat", "--quick")
    assert checked.returncode == 0 and "checking threat on gomoku_classic12" in checked.stdout, checked.stdout
