"""Reports: the standings table and the ``--json`` results document.

The JSON document (``kothkit run --json PATH``)::

    {
      "kothkit": "0.1.0", "game": "gomoku_swap2", "seed": 12345,
      "played": 10, "reused": 2, "total": 12,
      "journal": ".kothkit/gomoku_swap2.sqlite",
      "errors": ["bots/broken/meta:4: ..."],           # bots left out, with the reason
      "standings": [{"rank": 1, "bot": "threat", "points": 6, "wins": 3, "draws": 0, "losses": 1, "games": 4}],
      "games": [{"id": "...", "index": 0, "players": ["opener", "other"], "seed": 99,
                 "winner": "opener" | null, "reason": "five in a row",
                 "fault": null | "bot at fault", "verdict": null | "timeout",
                 "moves": ["(7,7)(7,8)(8,8)", "B", "(6,6)", ...], "times_ms": [0.8, 0.3, ...]}]
    }

``moves`` are the replies in order (lines for program bots, returned values
for function bots); seats alternate as the game's prompts say, which the
journal records exactly.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from rich.table import Table
from rich.text import Text

import kothkit
from kothkit.records import GameRecord
from kothkit.scoring import Standing


def _num(x: float):
    return int(x) if float(x).is_integer() else round(x, 4)


def standings_table(rows: list[Standing], title: str, mean: bool = False) -> Table:
    # Names are the bots' own: Text, so that "[red]" in one is shown, not taken for markup.
    t = Table(title=Text(title))
    t.add_column("#", justify="right")
    t.add_column("bot")
    t.add_column("score" if mean else "points", justify="right")
    for c in ("wins", "draws", "losses", "games"):
        t.add_column(c, justify="right")
    for i, s in enumerate(rows, 1):
        pts = f"{s.points:.3f}" if mean else str(_num(s.points))
        t.add_row(str(i), Text(s.bot), pts, str(s.wins), str(s.draws), str(s.losses), str(s.games))
    return t


def game_json(r: GameRecord) -> dict:
    return {
        "id": r.id, "index": r.index, "players": list(r.players), "seed": r.seed, "winner": r.winner,
        "reason": r.reason, "fault": r.fault, "verdict": r.verdict,
        "moves": [m.reply for m in r.moves], "times_ms": [m.ms for m in r.moves],
    }


def write_json(path: Path, *, game: str, seed: int, standings: list[Standing], games: Iterable[GameRecord],
               played: int, reused: int, total: int, journal: Path, errors: list[str]) -> None:
    """Stream the document to ``path`` (games are written one by one, never all held in memory)."""
    head = {
        "kothkit": kothkit.__version__, "game": game, "seed": seed, "played": played, "reused": reused,
        "total": total, "journal": str(journal), "errors": errors,
        "standings": [
            {"rank": i, "bot": s.bot, "points": _num(s.points), "wins": s.wins, "draws": s.draws,
             "losses": s.losses, "games": s.games}
            for i, s in enumerate(standings, 1)
        ],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(head, indent=1)[:-2] + ',\n "games": [\n')
        first = True
        for r in games:
            if not first:
                f.write(",\n")
            f.write("  " + json.dumps(game_json(r), default=repr))
            first = False
        f.write("\n ]\n}\n")
