"""Misbehaving Swap2 bots lose with the right verdict, through the real CLI and referee.

Each bot in tests/bots/swap2/ plays the opening legally and misbehaves at its
first game-phase prompt, so it faults in both games of its pairing (as opener
and as second player).  The good opponent is the bundled ``threat`` bot.
"""

import json
from pathlib import Path

import pytest
from kothkit.testing.procs import processes_touching

ROOT = Path(__file__).resolve().parents[2]
GOOD = ROOT / "plugins" / "gomoku_swap2" / "bots" / "threat"
BAD = ROOT / "tests" / "bots" / "swap2"

CASES = [
    ("crasher", "crash"),
    ("sleeper", "timeout"),
    ("garbage", "invalid-reply"),
    ("cheater", "illegal-move"),
    ("chatter", "out-of-turn"),
    ("mojibake", "invalid-reply"),
    ("flooder", "invalid-reply"),
]


@pytest.mark.parametrize("bad, verdict", CASES, ids=[c[0] for c in CASES])
def test_misbehaving_bot_loses_with_its_verdict(cli, tmp_path, bad, verdict):
    out = tmp_path / "out.json"
    r = cli("run", "gomoku_swap2", "--bots", str(BAD / bad), "--bots", str(GOOD), "--seed", "1", "--jobs", "1",
            "--move-time", "2", "--json", str(out), "--db", str(tmp_path / "tmp.sqlite"), timeout=180)
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(out.read_text())
    assert doc["game"] == "gomoku_swap2"
    games = doc["games"]
    assert len(games) == 2 and {tuple(sorted(g["players"])) for g in games} == {tuple(sorted((bad, "threat")))}
    for g in games:
        assert g["fault"] == bad, g
        assert g["verdict"] == verdict, g
        assert g["winner"] == "threat", g
    rows = {s["bot"]: s for s in doc["standings"]}
    assert rows["threat"]["points"] == 4 and rows[bad]["points"] == 0
    assert [s["bot"] for s in doc["standings"]] == ["threat", bad]
    # the tournament left no process of the bad bot behind (sleeper and flooder never stop by themselves)
    assert processes_touching(BAD / bad) == []
