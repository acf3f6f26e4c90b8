"""`kothkit match threat template --sprt 0,10` on gomoku_classic12: a real match of the bundled bots that decides and stops."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest


@pytest.mark.slow
def test_an_sprt_match_of_bundled_bots_decides_and_stops(tmp_path):
    out = tmp_path / "m.json"
    proc = subprocess.run([sys.executable, "-m", "kothkit", "match", "gomoku_classic12", "threat", "template", "--sprt", "0,10",
                           "--games", "600", "--seed", "1", "--jobs", "2", "--db", str(tmp_path / "m.sqlite"),
                           "--json", str(out), "-q"], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads(out.read_text())
    # threat wins nearly every pair: H1 well before the cap.
    assert doc["sprt"]["decision"] == "H1", proc.stdout
    assert doc["counted"] < 300 and doc["played"] < 600
    assert "SPRT: H1 accepted" in proc.stdout and "Ptnml(0-2): [" in proc.stdout
