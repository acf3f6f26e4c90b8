"""Scoring policies and standings, computed from the results of stored games.

A game picks a policy in ``GameInfo.scoring``; the core knows three shapes:
points per game (Swap2: 2/1/0), points per match, where a match is all games
of one pair (the course judge: 3/1/0 for winning more games), and the mean of
per-game scores (blindfold Connect-4: +1/0/-1 averaged).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping

import attrs

TIEBREAKS = ("wins", "submitted", "name")


def _names(items: Iterable[str]) -> tuple[str, ...]:
    # A function of ours, not the builtin ``tuple``: attrs reads a converter's signature, and a
    # builtin's is parsed from its text by the tokenizer, whose regular expressions would be
    # compiled at every command's start for that alone.
    return tuple(items)


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
        default=("name",), converter=_names, validator=attrs.validators.deep_iterable(attrs.validators.in_(TIEBREAKS))
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
    #: Matches (all games of one pair) won, drawn and lost, where points are per match; else None.
    match_wins: int | None = None
    match_draws: int | None = None
    match_losses: int | None = None

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


def rank_key(scoring: Scoring, submitted: Mapping[str, str | None] | None = None) -> Callable[[Standing], list[object]]:
    """The sort key of a ranking under ``scoring``: points, then its tie-breaks in order, then the
    name (``submitted``: bot.toml dates, for the "submitted" tie-break).  Every ranking uses it
    (the Tally's, the host's live scoreboard)."""
    dates = submitted or {}

    def key(s: Standing) -> list[object]:
        k: list[object] = [-s.points]
        for t in scoring.tiebreak:
            if t == "wins":
                k.append(-s.wins)
            elif t == "submitted":
                date = dates.get(s.bot)
                k.append((date is None, date or ""))
            else:
                k.append(s.bot)
        k.append(s.bot)
        return k

    return key


@attrs.define
class Tally:
    """Standings built up one game result at a time: counts only, so memory stays flat
    however many games a tournament has.  Results naming other bots are ignored."""

    scoring: Scoring
    bots: list[str]
    # Games per (players, winner): one count a game (a tournament adds thousands a
    # second), worked into wins, points and matches when standings are asked for.
    _results: dict[tuple[tuple[str, ...], str | None], int] = attrs.field(init=False, factory=lambda: defaultdict(int))

    def add(self, players: tuple[str, ...], winner: str | None) -> None:
        self._results[players if type(players) is tuple else tuple(players), winner] += 1

    def standings(self, submitted: Mapping[str, str] | None = None) -> list[Standing]:
        """The bots ranked (``submitted``: bot.toml dates, for the "submitted" tiebreak)."""
        scoring = self.scoring
        known = set(self.bots)
        wins: dict[str, int] = defaultdict(int)
        draws: dict[str, int] = defaultdict(int)
        losses: dict[str, int] = defaultdict(int)
        points: dict[str, float] = defaultdict(float)
        # Per unordered pair: games won by each side, for match scoring.
        matches: dict[tuple[str, ...], dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for (players, winner), n in self._results.items():
            if not known.issuperset(players):
                continue
            for p in players:
                if winner is None:
                    draws[p] += n
                elif p == winner:
                    wins[p] += n
                else:
                    losses[p] += n
            if scoring.unit == "game":
                for p in players:
                    points[p] += n * (scoring.draw if winner is None else scoring.win if p == winner else scoring.loss)
            else:
                m = matches[tuple(sorted(players))]  # a pair that only drew still played a match
                if winner is not None:
                    m[winner] += n
        # Per bot: matches won, drawn, lost.
        record: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
        for (a, b), m in matches.items():
            if m[a] == m[b]:
                points[a] += scoring.draw
                points[b] += scoring.draw
                record[a][1] += 1
                record[b][1] += 1
            else:
                won, lost_by = (a, b) if m[a] > m[b] else (b, a)
                points[won] += scoring.win
                points[lost_by] += scoring.loss
                record[won][0] += 1
                record[lost_by][2] += 1
        rows = []
        for bot in self.bots:
            pts = points[bot]
            w, d, lost = wins[bot], draws[bot], losses[bot]
            if scoring.mean:
                played = w + d + lost
                pts = pts / played if played else 0.0
            if scoring.unit == "match":
                mw, md, ml = record[bot]
                rows.append(Standing(bot=bot, points=pts, wins=w, draws=d, losses=lost, match_wins=mw, match_draws=md,
                                     match_losses=ml))
            else:
                rows.append(Standing(bot=bot, points=pts, wins=w, draws=d, losses=lost))
        return sorted(rows, key=rank_key(scoring, submitted))


def standings(
    scoring: Scoring,
    bots: Iterable[str],
    results: Iterable[Result],
    submitted: Mapping[str, str] | None = None,
) -> list[Standing]:
    """Rank ``bots`` by ``results`` under ``scoring``; results naming other bots are ignored."""
    tally = Tally(scoring, list(bots))
    for r in results:
        tally.add(r.players, r.winner)
    return tally.standings(submitted)
