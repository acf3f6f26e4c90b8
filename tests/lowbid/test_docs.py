"""docs/plugins.md's N-player example (lowest unique bid, whole) works as shown: played by hand
through next() and play(), a seat that faults is out and the others finish."""

from __future__ import annotations

import re
import types
from pathlib import Path

from kothkit.game import Outcome, Round, Setup, Verdict

ROOT = Path(__file__).resolve().parents[2]


def example() -> types.ModuleType:
    doc = (ROOT / "docs" / "plugins.md").read_text()
    code = re.search(r"<!-- example: lowest_bid -->\n```python\n(.*?)```\n", doc, re.S).group(1)
    module = types.ModuleType("lowest_bid_example")
    exec(compile(code, "docs/plugins.md (lowest_bid)", "exec"), module.__dict__)
    return module


def test_the_documented_n_player_game_plays_and_goes_on_without_a_seat_that_faults():
    doc = example()
    assert [i.name for i in doc.kothkit_games()] == ["lowest_bid"] and doc.INFO.seat_range == (3, 10)
    m = doc.INFO.match(Setup(players=("a", "b", "c", "d"), seed=1, rules={"rounds": 2}))
    first = m.next()
    assert isinstance(first, Round) and [p.payload for p in first.prompts] == ["BID 1 0 0 0 0"] * 4
    for seat, bid in enumerate("1123"):
        assert m.play(seat, bid) is None
    assert m.points == [0, 0, 1, 0]
    assert m.play(0, "x").verdict == Verdict.INVALID_REPLY and m.play(0, "11").verdict == Verdict.ILLEGAL_MOVE
    assert m.play(0, "1") is None and m.play(1, "2") is None and m.play(2, "2") is None
    assert m.leave(3, Verdict.TIMEOUT, "no bid") is None  # the round waited for seat 3 alone
    out = m.next()
    assert isinstance(out, Outcome) and out.points == (1, 0, 1, 0) and out.winner is None
