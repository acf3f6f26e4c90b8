"""challenges/lowbid: the folder challenge `kothkit serve` hosts, of the bundled bots, at tables scored
by mean points: it loads as a challenge and as a hosted folder, with a table of them to play."""

from __future__ import annotations

from pathlib import Path

from kothkit.bots.folders import load_bots
from kothkit.playing import challenge
from kothkit.plugins import get_game
from kothkit.serve import settings

CHALLENGE = Path(__file__).resolve().parents[2] / "challenges" / "lowbid"


def test_the_challenge_loads_hosted_as_a_folder_of_a_table_of_bots():
    ch = challenge.load(CHALLENGE)
    info = get_game(ch.game)
    assert ch.game == "lowbid" and info.check_rules(ch.rules) == {"rounds": 10, "max_bid": 10}
    bots = load_bots(list(ch.bots)).bots
    assert sorted(b.name for b in bots) == ["dodger", "one", "spoiler", "tracker"]
    assert info.table_size(len(bots)) == 4
    assert info.scoring.counts == "points" and info.scoring.mean  # standings: mean points ± error
    hosted = settings.load(CHALLENGE)
    assert hosted.kind == "folder" and hosted.title == "KoTH: lowest unique bid"
    assert "plugins/lowbid/README.md" in (CHALLENGE / "README.md").read_text()
