"""The seed's results table (Name, Draws, Losses, Wins, Score), printed after kothkit's standings.

Same columns, order and layout as the seed controller's ``run_tournament``
printout: names with a colon, the score to three decimals, columns padded to
their widest entry plus one space, a blank line under the header.
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
        rows.append((f"{s.bot}:", str(s.draws), str(s.losses), str(s.wins), "%6.3f" % score))
    widths = [max(len(cell) for cell in col) + 1 for col in zip(*rows)]
    lines = []
    for i, row in enumerate(rows):
        lines.append("".join(cell + " " * (w - len(cell)) for cell, w in zip(row, widths)).rstrip())
        if i == 0:
            lines.append("")
    return "\n".join(lines)
