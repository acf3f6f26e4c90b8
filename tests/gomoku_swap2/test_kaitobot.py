"""KaitoBot, the JavaScript answer printed in seed 002 (kept verbatim), plays valid games under kothkit run.

It is loaded from its legacy ``meta`` file (name, command, arguments, stderr
flag) exactly as the 2018 judge did.  It searches slowly (up to seconds per
move), hence the long --move-time and the slow mark.
"""

import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
KAITO = ROOT / "tests" / "bots" / "swap2" / "kaitobot"
THREAT = ROOT / "plugins" / "gomoku_swap2" / "bots" / "threat"


@pytest.mark.slow
def test_kaitobot_plays_valid_games(cli, tmp_path):
    out = tmp_path / "out.json"
    r = cli("run", "gomoku_swap2", "--bots", str(KAITO), "--bots", str(THREAT), "--seed", "2", "--jobs", "2",
            "--move-time", "60", "--json", str(out), "--db", str(tmp_path / "db.sqlite"), "--quiet", timeout=900)
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(out.read_text())
    assert doc["errors"] == []
    games = doc["games"]
    assert len(games) == 2 and all("KaitoBot" in g["players"] for g in games)
    for g in games:
        # no verdict: every reply KaitoBot gave was read and accepted
        assert g["fault"] is None and g["verdict"] is None, g
        assert g["reason"] in ("five in a row", "board full")
        assert len(g["moves"]) >= 4  # the opening and some stones
    assert {s["bot"] for s in doc["standings"]} == {"KaitoBot", "threat"}
