"""Scoring policies and standings, computed from the results of stored games.

A game picks a policy in ``GameInfo.scoring``; the core knows three shapes:
points per game (Swap2: 2/1/0), points per match, where a match is all games
of one pair (the course judge: 3/1/0 for winning more games), and the mean of
per-game scores (blindfold Connect-4: +1/0/-1 averaged).  What a game counts
(:attr:`Scoring.counts`) is its outcome (win, draw, loss), for games of any number of
seats also the game's own points, points by placing, or first places.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs

TIEBREAKS = ("wins", "submitted", "name")


def _names(items: Iterable[str]) -> tuple[str, ...]:
    # A function of ours, not the builtin ``tuple``: attrs reads a converter's signature, and a
    # builtin's is parsed from its text by the tokenizer, whose regular expressions would be
    # compiled at every command's start for that alone.
    return tuple(items)


def _floats(items: Iterable[float]) -> tuple[float, ...]:
    return tuple(float(x) for x in items)


def _names_list(items: Iterable[str]) -> list[str]:
    return list(items)


class Counts(enum.StrEnum):
    """What a game's result counts for (:attr:`Scoring.counts`)."""

    #: Win, draw or loss: ``Scoring.win``, ``draw``, ``loss`` points (a two-seat game's way; with
    #: more seats, first place alone wins, shared first place draws, any other place loses).
    OUTCOME = "outcome"
    #: The game's own points (``Outcome.points``).
    POINTS = "points"
    #: Points by place: ``Scoring.by_place`` (default: seats - place).
    PLACING = "placing"
    #: First places: 1 for a seat alone in first place, else 0.
    WINS = "wins"


class Unit(enum.StrEnum):
    """What earns points: each game, or each match (all games of one pair)."""

    GAME = "game"
    MATCH = "match"


@attrs.frozen
class Scoring:
    #: "game": points for each game; "match": points for each pair's set of games.
    unit: Unit = attrs.field(default=Unit.GAME, converter=Unit)
    win: float = 1.0
    draw: float = 0.5
    loss: float = 0.0
    #: Rank by the mean points per game instead of the total.
    mean: bool = False
    #: What a game counts for (:class:`Counts`): "outcome" (win/draw/loss points, as ever),
    #: "points" (the game's own), "placing" (:attr:`by_place`) or "wins" (first places).
    counts: Counts = attrs.field(default=Counts.OUTCOME, converter=Counts)
    #: Points for first, second, ... place under "placing" (a place past the end: 0), e.g.
    #: (10, 6, 4, 3, 2, 1); empty: seats - place (in a game of 6, first place is worth 5).
    by_place: tuple[float, ...] = attrs.field(default=(), converter=_floats)
    #: The points a seat that left its game by a fault scores under "points" (it is placed last).
    forfeit: float = 0.0
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
    #: Every seat's place and points (a game of more than two seats), or None: from ``winner``.
    places: tuple[int, ...] | None = None
    points: tuple[float, ...] | None = None


def game_scores(scoring: Scoring, players: Sequence[str], winner: str | None,
                places: Sequence[int] | None = None, points: Sequence[float] | None = None) -> list[float]:
    """What one game counts for each of its seats under ``scoring`` (:attr:`Scoring.counts`), in seat
    order: the places default to those of ``winner`` (the winner first, the others second; a draw:
    all first), the points (under "points") to the outcome's win/draw/loss points."""
    n = len(players)
    if places is None:
        places = [1] * n if winner is None else [1 if p == winner else 2 for p in players]
    counts = scoring.counts
    if counts == Counts.POINTS and points is not None:
        return [float(p) for p in points]
    firsts = sum(1 for p in places if p == 1)
    if counts == Counts.PLACING:
        table = scoring.by_place
        return [(table[p - 1] if p <= len(table) else 0.0) if table else float(n - p) for p in places]
    if counts == Counts.WINS:
        return [1.0 if p == 1 and firsts == 1 else 0.0 for p in places]
    return [(scoring.win if firsts == 1 else scoring.draw) if p == 1 else scoring.loss for p in places]


def mean_and_error(total: float, squares: float, games: int) -> tuple[float, float | None]:
    """The mean of ``games`` scores whose sum is ``total`` and sum of squares ``squares``, and its
    standard error (the sample standard deviation over the square root of the games; None under two)."""
    if games == 0:
        return 0.0, None
    mean = total / games
    if games < 2:
        return mean, None
    var = max(0.0, (squares - games * mean * mean) / (games - 1))
    return mean, math.sqrt(var / games)


@attrs.frozen
class Standing:
    """One bot's row of a ranking (:meth:`Tally.standings`): what every ranking shows, the CLI's
    table, a report's and the host's Scoreboard (:class:`kothkit.serve.views.ScoreboardRow` adds
    what the host knows of the bot)."""

    bot: str
    points: float
    wins: int
    draws: int
    losses: int
    #: Matches (all games of one pair) won, drawn and lost, where points are per match; else None.
    match_wins: int | None = None
    match_draws: int | None = None
    match_losses: int | None = None
    #: The place, from 1 (:func:`ranked`): bots the game's tie-breaks cannot tell apart share one.
    rank: int = 0
    #: The bot's mean score per game, and its standard error (None under two games): what tables of
    #: games of more than two seats show as "mean ± error".  Worked out from the games counted (a
    #: running sum's rounding aside), so not compared.
    mean: float = attrs.field(default=0.0, eq=False)
    error: float | None = attrs.field(default=None, eq=False)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def mean_error(self) -> str:
        """The mean score per game with its standard error, for tables: "3.25 ± 0.41" ("3.25 ± -"
        under two games)."""
        return f"{self.mean:.3g} ± {'-' if self.error is None else f'{self.error:.2g}'}"


def rank_key(scoring: Scoring, submitted: Mapping[str, str | None] | None = None) -> Callable[[Standing], list[object]]:
    """The sort key of a ranking under ``scoring``: points, then its tie-breaks in order, then the
    name (``submitted``: bot.toml dates, for the "submitted" tie-break).  Every ranking uses it,
    through :func:`ranked`."""
    level = _level_key(scoring, submitted)

    def key(s: Standing) -> list[object]:
        k = level(s)
        k.append(s.bot)
        return k

    return key


def _level_key(scoring: Scoring, submitted: Mapping[str, str | None] | None) -> Callable[[Standing], list[object]]:
    """Points and the game's own tie-breaks: bots equal on it share a rank."""
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
        return k

    return key


def ranked(scoring: Scoring, rows: Iterable[Standing],
           submitted: Mapping[str, str | None] | None = None) -> list[Standing]:
    """``rows`` best first, each numbered: the one ranking of every table (``kothkit run``, a
    report, the host's Scoreboard).  Bots level on points and on every tie-break the game names
    share a rank (the next rank is then skipped: 1, 2, 2, 4); a game whose tie-breaks end with
    "name" gives every bot its own."""
    level = _level_key(scoring, submitted)
    out: list[Standing] = []
    prev: list[object] | None = None
    rank = 0
    for i, s in enumerate(sorted(rows, key=rank_key(scoring, submitted))):
        k = level(s)
        if k != prev:
            rank, prev = i + 1, k
        out.append(s if s.rank == rank else attrs.evolve(s, rank=rank))
    return out


_NONE = (0, 0, 0)


@attrs.define
class Tally:
    """Standings kept up to date one game at a time, and taken back a game or a bot at a time.

    Each bot's wins, draws, losses and points are kept as games come (for match scoring, each
    pair's games too, re-scoring only that pair's match), so a ranking is a sort of the bots
    however many games were counted: ``kothkit run`` adds thousands a second, and the host's
    Scoreboard asks for the standings after every game.  Results naming bots not on the tally are
    ignored."""

    scoring: Scoring
    bots: list[str] = attrs.field(converter=_names_list)
    _known: set[str] = attrs.field(init=False)
    wins: dict[str, int] = attrs.field(init=False)
    draws: dict[str, int] = attrs.field(init=False)
    losses: dict[str, int] = attrs.field(init=False)
    points: dict[str, float] = attrs.field(init=False)
    #: Matches won, drawn, lost per bot (match scoring).
    matches: dict[str, list[int]] = attrs.field(init=False)
    #: Per unordered pair (sorted): [games won by the first, by the second] (match scoring).
    _pairs: dict[tuple[str, ...], list[int]] = attrs.field(init=False, factory=dict)
    #: (bot, opponent) -> (wins, draws, losses) of bot against opponent: the crosstable's cells.
    cells: dict[tuple[str, str], tuple[int, int, int]] = attrs.field(init=False, factory=dict)
    #: Per bot, the sum of its per-game scores' squares (for the standard error), where the scores
    #: are not the win/draw/loss points (whose squares follow from the counts).
    squares: dict[str, float] = attrs.field(init=False, factory=dict)
    #: Games count by their seats' places and points (Scoring.counts other than "outcome").
    _by_places: bool = attrs.field(init=False, default=False)

    def __attrs_post_init__(self) -> None:
        self._known = set(self.bots)
        self.wins, self.draws, self.losses = (dict.fromkeys(self.bots, 0) for _ in range(3))
        self.points = dict.fromkeys(self.bots, 0.0)
        self.matches = {b: [0, 0, 0] for b in self.bots}
        self._by_places = self.scoring.counts != Counts.OUTCOME

    def add(self, players: tuple[str, ...], winner: str | None, *, places: Sequence[int] | None = None,
            points: Sequence[float] | None = None) -> None:
        """One more game (one naming a bot not on the tally is ignored); ``places`` and ``points``:
        every seat's, in a game of more than two seats (:class:`kothkit.store.records.GameResult`'s)."""
        if places is not None or points is not None or self._by_places:
            self._seated(players, winner, places, points, +1)
            return
        if len(players) == 2 and self.scoring.unit == Unit.GAME and winner in (players[0], players[1], None):
            self._add_pair(players[0], players[1], winner)  # (the usual game: kept fast)
            return
        if not self._known.issuperset(players):
            return
        self._count(players, winner, +1)
        if len(players) == 2:
            a, b = players
            for me, other in ((a, b), (b, a)):
                w, d, lost = self.cells.get((me, other), (0, 0, 0))
                # Tuples, replaced (never changed in place): a copy of the dict is a snapshot.
                self.cells[(me, other)] = ((w, d + 1, lost) if winner is None else (w + 1, d, lost) if winner == me
                                           else (w, d, lost + 1))
        if self.scoring.unit == Unit.MATCH:
            pair = tuple(sorted(players))
            counts = self._pairs.get(pair)
            if counts is not None:
                self._score_match(pair, counts, -1)
            else:
                counts = self._pairs[pair] = [0] * len(pair)
            if winner is not None:
                counts[pair.index(winner)] += 1
            self._score_match(pair, counts, +1)

    def _add_pair(self, a: str, b: str, winner: str | None) -> None:
        """:meth:`add` of a two-player game scored by the game, written out: ``kothkit run`` adds
        thousands a second."""
        known = self._known
        if a not in known or b not in known:
            return
        cells, s, points = self.cells, self.scoring, self.points
        ab, ba = cells.get((a, b), _NONE), cells.get((b, a), _NONE)
        # Tuples, replaced (never changed in place): a copy of the dict is a snapshot.
        if winner is None:
            self.draws[a] += 1
            self.draws[b] += 1
            points[a] += s.draw
            points[b] += s.draw
            cells[(a, b)] = (ab[0], ab[1] + 1, ab[2])
            cells[(b, a)] = (ba[0], ba[1] + 1, ba[2])
            return
        if winner == a:
            cells[(a, b)] = (ab[0] + 1, ab[1], ab[2])
            cells[(b, a)] = (ba[0], ba[1], ba[2] + 1)
            loser = b
        else:
            cells[(a, b)] = (ab[0], ab[1], ab[2] + 1)
            cells[(b, a)] = (ba[0] + 1, ba[1], ba[2])
            loser = a
        self.wins[winner] += 1
        self.losses[loser] += 1
        points[winner] += s.win
        points[loser] += s.loss

    def _seated(self, players: tuple[str, ...], winner: str | None, places: Sequence[int] | None,
                points: Sequence[float] | None, sign: int) -> None:
        """A game counted by its seats' places and points (:func:`game_scores`), added (``sign`` 1) or
        taken back (-1): alone in first place is a win, sharing it a draw, any other place a loss.
        Counted per game whatever :attr:`Scoring.unit` (a match is a pair's)."""
        if not self._known.issuperset(players):
            return
        n = len(players)
        if places is None:
            places = [1] * n if winner is None else [1 if p == winner else 2 for p in players]
        firsts = sum(1 for p in places if p == 1)
        scores = game_scores(self.scoring, players, winner, places, points)
        for p, place, score in zip(players, places, scores, strict=True):
            table = (self.wins if firsts == 1 else self.draws) if place == 1 else self.losses
            table[p] += sign
            self.points[p] += sign * score
            self.squares[p] = self.squares.get(p, 0.0) + sign * score * score
        if n == 2 and winner in (players[0], players[1], None) and places in ((1, 1), (1, 2), (2, 1)):
            a, b = players
            for me, other in ((a, b), (b, a)):
                w, d, lost = self.cells.get((me, other), (0, 0, 0))
                cell = ((w, d + sign, lost) if winner is None else (w + sign, d, lost) if winner == me
                        else (w, d, lost + sign))
                if cell == (0, 0, 0):
                    self.cells.pop((me, other), None)
                else:
                    self.cells[(me, other)] = cell

    def remove(self, players: tuple[str, ...], winner: str | None, *, places: Sequence[int] | None = None,
               points: Sequence[float] | None = None) -> None:
        """Take back one game given to :meth:`add` (a bot's games, when the bot changes or leaves)."""
        if places is not None or points is not None or self._by_places:
            self._seated(players, winner, places, points, -1)
            return
        if not self._known.issuperset(players):
            return
        self._count(players, winner, -1)
        if len(players) == 2:
            a, b = players
            for me, other in ((a, b), (b, a)):
                w, d, lost = self.cells[(me, other)]
                cell = (w, d - 1, lost) if winner is None else (w - 1, d, lost) if winner == me else (w, d, lost - 1)
                if cell == (0, 0, 0):
                    del self.cells[(me, other)]
                else:
                    self.cells[(me, other)] = cell
        if self.scoring.unit == Unit.MATCH:
            pair = tuple(sorted(players))
            counts = self._pairs[pair]
            self._score_match(pair, counts, -1)
            if winner is not None:
                counts[pair.index(winner)] -= 1
            if (pair[0], pair[-1]) in self.cells:  # games of the pair are left: their match counts
                self._score_match(pair, counts, +1)
            else:
                del self._pairs[pair]

    def add_bot(self, bot: str) -> None:
        """A bot joins (with no games yet)."""
        if bot in self._known:
            return
        self.bots.append(bot)
        self._known.add(bot)
        self.wins[bot] = self.draws[bot] = self.losses[bot] = 0
        self.points[bot] = 0.0
        self.matches[bot] = [0, 0, 0]

    def remove_bot(self, bot: str) -> None:
        """A bot leaves; its games must have been taken back first (:meth:`remove`)."""
        if bot not in self._known:
            return
        self.bots.remove(bot)
        self._known.discard(bot)
        for table in (self.wins, self.draws, self.losses, self.points, self.matches):
            del table[bot]
        self.squares.pop(bot, None)

    def _count(self, players: tuple[str, ...], winner: str | None, sign: int) -> None:
        """Each player's win, draw or loss of one game, and its points where games score, added
        (``sign`` 1) or taken back (-1)."""
        s = self.scoring
        for p in players:
            table = self.draws if winner is None else self.wins if p == winner else self.losses
            table[p] += sign
            if s.unit == Unit.GAME:
                self.points[p] += sign * (s.draw if winner is None else s.win if p == winner else s.loss)

    def _score_match(self, pair: tuple[str, ...], counts: list[int], sign: int) -> None:
        """Add (``sign`` 1) or take back (-1) the match of ``pair`` as ``counts`` stand."""
        s = self.scoring
        a, b = pair[0], pair[-1]
        if counts[0] == counts[-1]:
            for p in (a, b):
                self.points[p] += sign * s.draw
                self.matches[p][1] += sign
        else:
            w, lost = (a, b) if counts[0] > counts[-1] else (b, a)
            self.points[w] += sign * s.win
            self.points[lost] += sign * s.loss
            self.matches[w][0] += sign
            self.matches[lost][2] += sign

    def games(self, bot: str) -> int:
        """Games counted of ``bot`` (0 for a bot not on the tally)."""
        return self.wins.get(bot, 0) + self.draws.get(bot, 0) + self.losses.get(bot, 0)

    def standings(self, submitted: Mapping[str, str | None] | None = None) -> list[Standing]:
        """The bots ranked (:func:`ranked`; ``submitted``: bot.toml dates, for the "submitted" tie-break)."""
        s = self.scoring
        rows = []
        squares = self.squares
        for n in self.bots:
            w, d, lost = self.wins[n], self.draws[n], self.losses[n]
            p = self.points[n]
            games = w + d + lost
            if n in squares:  # scores of places and points (Tally._seated)
                sq = squares[n]
            else:  # win/draw/loss points: their squares follow from the counts
                sq = w * s.win * s.win + d * s.draw * s.draw + lost * s.loss * s.loss
            mean, error = mean_and_error(p, sq, games)
            if s.mean:
                p = mean
            if s.unit == Unit.MATCH and n not in squares:
                mw, md, ml = self.matches[n]
                rows.append(Standing(bot=n, points=p, wins=w, draws=d, losses=lost, match_wins=mw, match_draws=md,
                                     match_losses=ml, mean=self.points[n] / games if games else 0.0))
            else:
                rows.append(Standing(bot=n, points=p, wins=w, draws=d, losses=lost, mean=mean, error=error))
        return ranked(s, rows, submitted)


def standings(
    scoring: Scoring,
    bots: Iterable[str],
    results: Iterable[Result | Any],
    submitted: Mapping[str, str | None] | None = None,
) -> list[Standing]:
    """Rank ``bots`` by ``results`` under ``scoring``; results naming other bots are ignored.

    A result is a :class:`Result` or a journal's result (``kothkit.store.records.GameResult``, whose
    seats' places and points are ``seat_places`` and ``seat_points``: read by name, as this layer
    imports nothing of the store's)."""
    tally = Tally(scoring, list(bots))
    for r in results:
        if isinstance(r, Result):
            places, points = r.places, r.points
        else:
            places, points = r.seat_places, r.seat_points
        tally.add(r.players, r.winner, places=places, points=points)
    return tally.standings(submitted)
