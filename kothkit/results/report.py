"""Reports: the standings table and the ``--json`` results document.

The JSON document (``kothkit run --json PATH``)::

    {
      "kothkit": "0.1.0", "game": "gomoku_swap2", "seed": 12345,
      "played": 10, "reused": 2, "total": 12,
      "journal": ".kothkit/gomoku_swap2.sqlite",
      "errors": ["bots/broken/meta:4: ..."],           # bots left out, with the reason
      "standings": [{"rank": 1, "bot": "threat", "points": 6, "wins": 3, "draws": 0, "losses": 1, "games": 4,
                     "elo": 95.3, "elo_error": 120.4, "elo_rank": 1}],   # Elo: see docs/ratings.md
                                                       # + match_wins, match_draws, match_losses where
                                                       # points are per match (gomoku_classic12)
      "ratings": {"model": "...", "interval": "...", "bots": [...], "los": {"threat": {"greedy": 0.93}},
                  "notes": []},
      # a game of more than two seats instead: each standing has "mean", "error" (its standard error)
      # and "mu", "sigma", "ordinal" (its openskill rating, see docs/ratings.md), and
      "skills": [{"bot": "steady", "mu": 27.1, "sigma": 3.2, "ordinal": 17.5, "games": 12}, ...],
      "placed_above": {"steady": {"random": [9, 12]}},   # row bot placed above column bot in 9 of 12 games
      "games": [{"id": "...", "index": 0, "players": ["opener", "other"], "seed": 99,
                 "winner": "opener" | null, "reason": "five in a row",
                 "offender": null | "bot at fault", "verdict": null | "timeout",
                 "fault": null | "bot at fault",      # the old name of "offender", for old readers
                 "moves": ["(7,7)(7,8)(8,8)", "B", "(6,6)", ...], "times_ms": [0.8, 0.3, ...]}]
    }

``moves`` are the replies in order (lines for program bots, returned values
for function bots); seats alternate as the game's prompts say, which the
journal records exactly.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text

import kothkit
from kothkit.procs.fastjson import dumps as _dumps
from kothkit.scoring import Standing
from kothkit.store.ratings import Ratings, SkillRating
from kothkit.store.records import GameRecord

if TYPE_CHECKING:
    from kothkit.store.journal import Outline


def _num(x: float):
    return int(x) if float(x).is_integer() else round(x, 4)


def standings_table(rows: list[Standing], title: str, mean: bool = False, ratings: Ratings | None = None,
                    spread: bool = False, skills: Sequence[SkillRating] | None = None,
                    memory: dict[str, int] | None = None) -> Table:
    """The standings; where points are per match (a pair's games together), the matches won, drawn
    and lost come first and the games after, each under its own heading.  With ``ratings``, each
    bot's Elo, its 95% interval and its Elo rank beside the points (the rank is shared, "=", where
    intervals overlap).  With ``spread`` (a game of more than two seats), each bot's mean score per
    game with its standard error, "mean ± error".  With ``memory`` (:func:`memory_peaks`, not empty),
    each bot's highest memory peak, last."""
    matches = bool(rows) and rows[0].match_wins is not None
    # Names are the bots' own: Text, so that "[red]" in one is shown, not taken for markup.
    t = Table(title=Text(title))
    t.add_column("#", justify="right")
    t.add_column("bot")
    t.add_column("score" if mean else "match points" if matches else "points", justify="right")
    if spread:
        t.add_column("mean ± error", justify="right")
    heads = (["matches won", "drawn", "lost", "games won", "drawn", "lost", "games"] if matches
             else ["wins", "draws", "losses", "games"])
    for c in heads:
        t.add_column(c, justify="right")
    rated = ratings if ratings is not None and ratings.ratings else None
    if rated is not None:
        t.add_column("Elo", justify="right")
        t.add_column("±95%", justify="right")
        t.add_column("Elo rank", justify="right")
        shared = {r.rank for r in rated.ratings if sum(x.rank == r.rank for x in rated.ratings) > 1}
    skill = {r.bot: r for r in skills} if skills else None
    if skill is not None:
        t.add_column("skill ± σ", justify="right")
        t.add_column("ordinal", justify="right")
    if memory:
        t.add_column("memory peak", justify="right")
    for s in rows:
        pts = f"{s.points:.3f}" if mean else str(_num(s.points))
        counts = [s.match_wins, s.match_draws, s.match_losses] if matches else []
        counts += [s.wins, s.draws, s.losses, s.games]
        cells: list[str | Text] = [str(s.rank), Text(s.bot), pts, *([s.mean_error()] if spread else []),
                                   *map(str, counts)]
        if rated is not None:
            r = rated.of(s.bot)
            # No error estimate (as many ratings as pairs) shows as "-".
            cells += ([f"{round(r.elo):+d}", f"{round(r.error)}" if math.isfinite(r.error) else "-",
                       f"{'=' if r.rank in shared else ''}{r.rank}"] if r is not None else ["-", "-", "-"])
        if skill is not None:
            k = skill.get(s.bot)
            cells += [f"{k.mu:.1f} ± {k.sigma:.1f}", f"{k.ordinal:.1f}"] if k is not None else ["-", "-"]
        if memory:
            cells.append(f"{memory[s.bot]} MiB" if s.bot in memory else "-")
        t.add_row(*cells)
    return t


def memory_peaks(records: Iterable[GameRecord]) -> dict[str, int]:
    """Each bot's highest memory peak over ``records`` (MiB, its memory cgroup's in each game); a bot
    with none known (no cgroup, a journal from before peaks were kept) is left out."""
    peaks: dict[str, int] = {}
    for r in records:
        for bot, mib in zip(r.players, r.memory or ()):
            if mib is not None and mib > peaks.get(bot, -1):
                peaks[bot] = mib
    return peaks


def above_table(above: dict[tuple[str, str], tuple[int, int]], bots: Sequence[str], title: str) -> Table:
    """The crosstable of a game of more than two seats (kothkit.store.ratings.placed_above): the cell
    of row a and column b is "above/games", in how many of the games a and b played together a placed
    above b ("-" where they never met)."""
    t = Table(title=Text(title))
    t.add_column("placed above →")
    for b in bots:
        t.add_column(Text(b), justify="right")
    for a in bots:
        cells: list[str | Text] = [Text(a)]
        for b in bots:
            cell = above.get((a, b)) if a != b else None
            cells.append(f"{cell[0]}/{cell[1]}" if cell is not None else "-")
        t.add_row(*cells)
    return t


def above_json(above: dict[tuple[str, str], tuple[int, int]]) -> dict[str, dict[str, list[int]]]:
    """The crosstable for JSON: ``{a: {b: [above, games]}}``."""
    out: dict[str, dict[str, list[int]]] = {}
    for (a, b), (n, games) in sorted(above.items()):
        out.setdefault(a, {})[b] = [n, games]
    return out


def game_json(r: GameRecord) -> dict:
    return {
        "id": r.id, "index": r.index, "players": list(r.players), "seed": r.seed, "winner": r.winner,
        "reason": r.reason, "offender": r.offender, "verdict": r.verdict, "fault": r.offender,
        **_seats_json(r.seat_places, r.seat_points, r.seat_verdicts),
        "moves": [m.reply for m in r.moves], "times_ms": [m.ms for m in r.moves],
    }


def _seats_json(places: Any, points: Any, verdicts: Any) -> dict:
    """Every seat's place, points and verdict, for a game of more than two seats (else nothing)."""
    if places is None:
        return {}
    return {"seat_places": list(places), "seat_points": None if points is None else list(points),
            "seat_verdicts": None if verdicts is None else list(verdicts)}


def outline_json(row: Outline, players: dict[str, list[str]] | None = None) -> str:
    """The JSON text of :func:`game_json` for a game's outline (:meth:`kothkit.store.journal.Journal.outlines`):
    the same text, made from the journal's columns without a record (``players`` caches the seatings)."""
    gid, idx, names, seed, winner, reason, offender, verdict, moves = row[:9]
    seats = None if players is None else players.get(names)
    if seats is None:
        seats = json.loads(names)
        if players is not None:
            players[names] = seats
    seated = row[9:12]  # (a plain tuple of the first nine is an outline too)
    extra = _seats_json(*(json.loads(x) if x else None for x in seated)) if seated and seated[0] else {}
    head = _dumps({"id": gid, "index": idx, "players": seats, "seed": seed, "winner": winner, "reason": reason,
                   "offender": offender, "verdict": verdict, "fault": offender, **extra})[:-1]
    split = _split_moves(moves)
    if split is not None:
        return f'{head}, "moves": [{split[0]}], "times_ms": [{split[1]}]}}'
    replies, times = [], []
    for m in json.loads(moves):  # [seat, reply, ms] each
        replies.append(m[1])
        times.append(m[2])
    return f'{head}, "moves": {_dumps(replies)}, "times_ms": {_dumps(times)}}}'


def _split_moves(text: str) -> tuple[str, str] | None:
    """The replies and the times of a journal's moves column, as the JSON text of their lists' items,
    cut from the column's own text where no reply is a string or a list (the usual function bot's
    reply, a number: the column is ``[[seat, reply, ms], ...]`` as JSON writes it, and a number's
    text is the one JSON writes again); None where the column must be parsed."""
    if '"' in text or not (text.startswith("[[") and text.endswith("]]")):
        return None
    inner = text[2:-2]
    if "[" in inner or "]" in inner or "{" in inner:
        return None
    replies, times = [], []
    for move in inner.split("], ["):
        parts = move.split(", ")
        if len(parts) != 3:
            return None
        replies.append(parts[1])
        times.append(parts[2])
    return ", ".join(replies), ", ".join(times)


def write_json(path: Path, *, game: str, seed: int, standings: list[Standing],
               games: Iterable[GameRecord] | None = None, played: int, reused: int, total: int, journal: Path,
               errors: list[str], ratings: Ratings | None = None,
               outlines: Iterable[Outline] | None = None, spread: bool = False,
               skills: Sequence[SkillRating] | None = None,
               above: dict[tuple[str, str], tuple[int, int]] | None = None) -> None:
    """Stream the document to ``path`` (games are written one by one, never all held in memory): the
    games are ``games`` (records), or ``outlines`` (the journal's, see :func:`outline_json`: a
    tournament's document is written from these, in a third of the time).  ``spread`` (a game of
    more than two seats): each standing's mean score per game and its standard error too; ``skills``
    and ``above`` (such a game's openskill ratings and crosstable): each standing's rating, and the
    document's "skills" and "placed_above"."""
    def elo(bot: str) -> dict:
        r = ratings.of(bot) if ratings is not None else None
        if r is None:
            return {}
        return {"elo": round(r.elo, 2), "elo_error": round(r.error, 2) if math.isfinite(r.error) else None,
                "elo_rank": r.rank}

    by_bot = {k.bot: k for k in skills or ()}

    def skill(bot: str) -> dict:
        k = by_bot.get(bot)
        return {} if k is None else {key: v for key, v in k.to_json().items() if key in ("mu", "sigma", "ordinal")}

    head = {
        "kothkit": kothkit.__version__, "game": game, "seed": seed, "played": played, "reused": reused,
        "total": total, "journal": str(journal), "errors": errors,
        "standings": [
            {"rank": s.rank, "bot": s.bot, "points": _num(s.points), "wins": s.wins, "draws": s.draws,
             "losses": s.losses, "games": s.games, **elo(s.bot),
             **({"mean": s.mean, "error": s.error} if spread else {}), **skill(s.bot),
             **({} if s.match_wins is None else
                {"match_wins": s.match_wins, "match_draws": s.match_draws, "match_losses": s.match_losses})}
            for s in standings
        ],
    }
    if ratings is not None:
        head["ratings"] = ratings.to_json()
    if skills is not None:
        head["skills"] = [k.to_json() for k in skills]
    if above is not None:
        head["placed_above"] = above_json(above)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(head, indent=1)[:-2] + ',\n "games": [\n')
        first = True
        for r in games or ():
            if not first:
                f.write(",\n")
            f.write("  " + json.dumps(game_json(r), default=repr))
            first = False
        seatings: dict[str, list[str]] = {}
        for row in outlines or ():
            f.write("  " + outline_json(row, seatings) if first else ",\n  " + outline_json(row, seatings))
            first = False
        f.write("\n ]\n}\n")
