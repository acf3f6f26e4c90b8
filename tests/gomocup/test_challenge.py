"""challenges/gomocup20, the Gomocup-style tournament of docs/tournaments.md: it loads, plays its
engines told Gomocup's limits, and its kothkit.toml names its opening list, which run and match play."""

from __future__ import annotations

import re

from tests.gomocup.conftest import ROOT

CHALLENGE = ROOT / "challenges" / "gomocup20"


def test_the_gomocup20_challenge_plays_on_20x20_with_gomocup_s_limits_and_its_openings(arena):
    shown = arena.kothkit("run", str(CHALLENGE), "--db", str(arena.root / "j.sqlite"), "--move-time", "3", "-q").stdout
    assert "window" in shown and "greedy" in shown
    assert re.search(r"openings: 12 \(.*openings.txt, sequential\), each played from both seats", shown)
    from kothkit.store.journal import Journal

    with Journal(arena.root / "j.sqlite") as j:
        rs = list(j.all())
    assert len(rs) == 2 and not [r for r in rs if r.verdict]
    log = rs[0].logs["greedy"]
    for told in ("INFO timeout_match 180000", f"INFO max_memory {350 << 20}", "INFO rule 0"):
        assert told in log
    assert "INFO timeout_turn 3000" in log  # the command line's over the challenge's 30 s
    proc = arena.kothkit("match", str(CHALLENGE), "greedy", "window",
                         "--games", "4", "--move-time", "3", "--db", str(arena.root / "m.sqlite"))
    assert re.search(r"openings: 12 \(.*openings.txt, sequential\), each played from both seats", proc.stdout)
