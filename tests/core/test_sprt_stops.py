"""An SPRT match stops once it decides, capped by ``--games`` or not: the games still handed out
then are the only ones played past the decision (issue 39: a capped match read its whole schedule
ahead, and the window kept playing after the SPRT had decided)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kothkit.playing.headtohead import SPRT_BATCH
from kothkit.playing.tournament import read_ahead

ROOT = Path(__file__).resolve().parents[2]
STRENGTH = ROOT / "tests" / "bots" / "connect4" / "strength.py"


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_capped_sprt_match_stops_within_the_games_in_flight(tmp_path, jobs):
    out = tmp_path / "m.json"
    proc = subprocess.run([sys.executable, "-m", "kothkit", "match", "connect4_hidden", f"{STRENGTH}:q100",
                           f"{STRENGTH}:q25", "--sprt", "0,10", "--games", "600", "--seed", "3", "--jobs", str(jobs),
                           "--db", str(tmp_path / "m.sqlite"), "--json", str(out), "-q"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
                          env={**os.environ, "COLUMNS": "200"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads(out.read_text())
    assert doc["sprt"]["decision"] == "H1"
    # Past the games counted: at most the schedule read ahead of them (which holds the games other
    # workers finished while one worker's batch was slow, on a busy machine), the batches in flight
    # (two a worker) and the pair left incomplete.
    assert doc["played"] <= doc["counted"] + read_ahead(jobs, SPRT_BATCH) + 2 * jobs * SPRT_BATCH + 2, doc
    assert doc["played"] < 600
