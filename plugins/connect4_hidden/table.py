"""The seed's results table (Name, Draws, Losses, Wins, Score), printed after kothkit's standings.

Same columns and order as the seed controller's ``run_tournament`` printout:
names with a colon, the score to three decimals, a blank line under the
header.  Unlike the seed's, whose cells are all left-aligned (so a negative
score sticks out one place to the left of the others), the numbers are
right-aligned under their headings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def seed_table(standings: Sequence[Any]) -> str:
    """The table for ``standings`` (kothkit Standing records, best first, as ranked by mean score)."""
    rows = [("Name", "Draws", "Losses", "Wins", "Score")]
    for s in standings:
        games = s.wins + s.draws + s.losses
        score = (s.wins - s.losses) / games if games else 0.0
        rows.append((f"{s.bot}:", str(s.draws), str(s.losses), str(s.wins), f"{score:.3f}"))
    widths = [max(len(cell) for cell in col) for col in zip(*rows)]
    lines = []
    for i, (name, *numbers) in enumerate(rows):
        lines.append(name.ljust(widths[0]) + "".join(" " + n.rjust(w) for n, w in zip(numbers, widths[1:])))
        if i == 0:
            lines.append("")
    return "\n".join(lines)
