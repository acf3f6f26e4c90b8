"""Scoring policies and standings, computed from game results (never kept only in memory).

A game picks a policy in ``GameInfo.scoring``; the core knows three shapes:
points per game (Swap2: 2/1/0), points per match, where a match is all games
of one pair (the course judge: 3/1/0 for winning more games), and the mean of
per-game scores (blindfold Connect-4: +1/0/-1 averaged).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping

import attrs

TIEBREAKS = ("wins", "submitted", "name")


@attrs.frozen
class Scoring:
    #: "game": points for each game; "match": points for each pair's set of games.
    unit: str = attrs.field(default="game", validator=attrs.validators.in_(("game", "match")))
    win: float = 1.0
    draw: float = 0.5
    loss: float = 0.0
    #: Rank by the mean points per game instead of the total.
    mean: bool = False
    #: Applied in order after points: "wins" (more games won first), "submitted"
    #: (earlier ``submitted`` date in bot.toml first; bots without one after), "name".
    tiebreak: tuple[str, ...] = attrs.field(
        default=("name",), converter=tuple, validator=attrs.validators.deep_iterable(attrs.validators.in_(TIEBREAKS))
    )


@attrs.frozen
class Result:
    """The scoring-relevant part of one finished game."""

    players: tuple[str, ...]
    winner: str | None  # bot name, None for a draw


@attrs.frozen
class Standing:
    bot: str
    points: float
    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


def standings(
    scoring: Scoring,
    bots: Iterable[str],
    results: Iterable[Result],
    submitted: Mapping[str, str] | None = None,
) -> list[Standing]:
    """Rank ``bots`` by ``results`` under ``scoring``; results naming other bots are ignored."""
    names = list(bots)
    known = set(names)
    wins: dict[str, int] = defaultdict(int)
    draws: dict[str, int] = defaultdict(int)
    losses: dict[str, int] = defaultdict(int)
    points: dict[str, float] = defaultdict(float)
    # per unordered pair: games won by each side, for match scoring
    matches: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in results:
        if not set(r.players) <= known:
            continue
        for p in r.players:
            if r.winner is None:
                draws[p] += 1
            elif p == r.winner:
                wins[p] += 1
            else:
                losses[p] += 1
        if scoring.unit == "game":
            for p in r.players:
                points[p] += scoring.draw if r.winner is None else scoring.win if p == r.winner else scoring.loss
        else:
            pair = tuple(sorted(r.players))
            m = matches[pair]  # type: ignore[index]
            if r.winner is not None:
                m[r.winner] += 1
    for (a, b), m in matches.items():
        if m[a] == m[b]:
            points[a] += scoring.draw
            points[b] += scoring.draw
        else:
            w, l = (a, b) if m[a] > m[b] else (b, a)
            points[w] += scoring.win
            points[l] += scoring.loss
    rows = []
    for n in names:
        p = points[n]
        if scoring.mean:
            played = wins[n] + draws[n] + losses[n]
            p = p / played if played else 0.0
        rows.append(Standing(bot=n, points=p, wins=wins[n], draws=draws[n], losses=losses[n]))
    submitted = submitted or {}

    def key(s: Standing):
        k: list = [-s.points]
        for t in scoring.tiebreak:
            if t == "wins":
                k.append(-s.wins)
            elif t == "submitted":
                date = submitted.get(s.bot)
                k.append((date is None, date or ""))
            else:
                k.append(s.bot)
        k.append(s.bot)
        return k

    return sorted(rows, key=key)
