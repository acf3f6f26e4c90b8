"""Ratings with error bars: Bradley–Terry ratings of a field, and the statistics of head-to-head game pairs.

Two kinds of numbers live here (docs/ratings.md explains each in plain words):

* :func:`rate` fits Elo ratings to all games of a field (a Bradley–Terry
  model, a draw counted as half a win), centred on the field's mean, with a
  95% interval from a sandwich (cluster-robust) covariance in which the game
  pairs of the schedule are the clusters, a likelihood-of-superiority matrix
  and ranks that are tied where intervals overlap.
* :func:`rate_tables` rates bots from games of any number of seats by their places (openskill's
  Plackett-Luce model: mu, sigma and the ordinal mu - 3 sigma), and :func:`placed_above` is the
  crosstable of such games: how often each bot placed above each other.
* :func:`match_stats` and :class:`SPRT` are the head-to-head statistics of
  game pairs as fastchess prints them (Elo ± error, nElo, LOS, pentanomial
  counts) and fishtest's generalized SPRT (vdbergh's pentanomial LLR,
  normalized or logistic Elo).

Everything here is pure computation on counts: no I/O, no clock.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import attrs

# numpy and scipy are imported where they are used (the head-to-head statistics and the SPRT), not
# here: importing them (scipy.optimize most of all) takes longer than most commands, and every
# kothkit command imports this module.  The ratings of a field (:func:`rate`) need neither.
if TYPE_CHECKING:
    import numpy as np

#: The two-sided 95% quantile of the normal distribution.
Z95 = 1.959963984540054
#: Normalized Elo per unit of t-value (fishtest's ``nelo_divided_by_nt``).
NELO_PER_T = 800 / math.log(10)
#: d(score)/d(Elo) scale of the logistic curve: p = 1 / (1 + exp(-C * elo)).
C = math.log(10) / 400
#: A game pair's score for each pentanomial class, per game: [LL, LD, WL+DD, WD, WW].
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)
#: What fishtest and fastchess put in place of an empty pentanomial class.
REGULARIZE = 1e-3


def elo_of(score: float) -> float:
    """The logistic Elo difference of an expected score (±inf at 0 and 1)."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def score_of(elo: float) -> float:
    """The expected score of a logistic Elo difference."""
    return 1 / (1 + 10 ** (-elo / 400))


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _round(x: float) -> float | None:
    """``x`` to two decimals for JSON; None where it is infinite (an error that cannot be estimated)."""
    return round(x, 2) if math.isfinite(x) else None


# -- head-to-head: pentanomial statistics ----------------------------------------------------


@attrs.frozen
class Pentanomial:
    """Counts of game pairs by the first bot's points over the pair: 0, ½, 1, 1½, 2."""

    ll: int = 0
    ld: int = 0
    wl_dd: int = 0
    wd: int = 0
    ww: int = 0

    @property
    def counts(self) -> tuple[int, int, int, int, int]:
        return (self.ll, self.ld, self.wl_dd, self.wd, self.ww)

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    def add(self, points: float) -> Pentanomial:
        """These counts and one more pair in which the first bot scored ``points`` (0 to 2)."""
        c = list(self.counts)
        c[round(points * 2)] += 1
        return Pentanomial(*c)

    def __add__(self, other: Pentanomial) -> Pentanomial:
        return Pentanomial(*(a + b for a, b in zip(self.counts, other.counts)))


@attrs.frozen
class MatchStats:
    """The fastchess statistics of one bot against another (or a field), from game pairs.

    ``score``, Elo, nElo and LOS are from the complete pairs (the pentanomial);
    the game counts are of the same games.  Values that are not defined (every
    pair won, say) are None.
    """

    games: int
    wins: int
    losses: int
    draws: int
    penta: Pentanomial
    score: float | None
    elo: float | None
    elo_error: float | None
    nelo: float | None
    nelo_error: float | None
    los: float | None

    @property
    def points(self) -> float:
        return self.wins + self.draws / 2

    @property
    def draw_ratio(self) -> float | None:
        return self.draws / self.games if self.games else None

    def to_json(self) -> dict[str, Any]:
        return {"games": self.games, "wins": self.wins, "losses": self.losses, "draws": self.draws,
                "points": self.points, "score": self.score, "elo": self.elo, "elo_error": self.elo_error,
                "nelo": self.nelo, "nelo_error": self.nelo_error, "los": self.los, "draw_ratio": self.draw_ratio,
                "pentanomial": list(self.penta.counts)}


def match_stats(penta: Pentanomial, wins: int = 0, losses: int = 0, draws: int = 0) -> MatchStats:
    """Elo ± 95% error, nElo ± error and LOS of ``penta``, as fastchess computes them.

    Per pair, the score is the mean of the classes' per-game scores and the
    variance that of the pair score (per game): the unit of the error is the
    pair, whose two games share a seed slot and are not independent.
    """
    import numpy as np

    n = penta.pairs
    nothing = MatchStats(wins + losses + draws, wins, losses, draws, penta, None, None, None, None, None, None)
    if n == 0:
        return nothing
    p = np.array(penta.counts, dtype=float) / n
    a = np.array(PAIR_SCORES)
    score = float(p @ a)
    var = float(p @ (a - score) ** 2)  # of one pair's per-game score
    sd_mean = math.sqrt(var / n)
    hi, lo = score + Z95 * sd_mean, score - Z95 * sd_mean
    elo = elo_of(score)
    err = (elo_of(hi) - elo_of(lo)) / 2 if 0 < lo and hi < 1 else math.inf
    if var > 0:
        nelo = (score - 0.5) / math.sqrt(2 * var) * NELO_PER_T
        nerr = Z95 * sd_mean / math.sqrt(2 * var) * NELO_PER_T
        los = _ndtr((score - 0.5) / sd_mean)
    else:  # every pair the same: no spread to measure anything against
        nelo = nerr = los = math.nan
    return MatchStats(wins + losses + draws, wins, losses, draws, penta, score, _finite(elo), _finite(err),
                      _finite(nelo), _finite(nerr), _finite(los))


def _pdf(counts: Sequence[float]) -> tuple[float, np.ndarray, np.ndarray]:
    """(N, outcome values in [0, 1], their frequencies): fishtest's ``results_to_pdf``, empty classes
    regularized to 1e-3 (so that the MLE below has a solution)."""
    import numpy as np

    c = np.array([x if x else REGULARIZE for x in counts], dtype=float)
    n = c.sum()
    return n, np.linspace(0, 1, len(c)), c / n


def _secular(phi: np.ndarray, p: np.ndarray) -> float:
    """The root x of sum_i p_i phi_i / (1 + x phi_i) = 0 between its poles (phi has both signs)."""
    import numpy as np
    from scipy import optimize

    lo, hi = -1 / phi.max(), -1 / phi.min()
    eps = 1e-12 * (hi - lo)

    def f(x: float) -> float:
        return float(np.sum(p * phi / (1 + x * phi)))

    root: float = optimize.brentq(f, lo + eps, hi - eps, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)
    return root


def mle_expectation(a: np.ndarray, p: np.ndarray, s: float) -> np.ndarray:
    """The distribution on ``a`` nearest the empirical ``p`` (maximum likelihood) whose mean is ``s``
    (vdbergh, "support_MLE_multinomial", Proposition 1.1)."""
    phi = a - s
    x = _secular(phi, p)
    return p / (1 + x * phi)


def mle_t_value(a: np.ndarray, p: np.ndarray, ref: float, t: float) -> np.ndarray:
    """The maximum likelihood distribution on ``a`` given the empirical ``p`` with t-value
    (mu - ref) / sigma equal to ``t`` (vdbergh, "normalized_elo_practical", section 4.1: a fixed point,
    iterated from the uniform distribution until it stops moving)."""
    import numpy as np

    q = np.full(len(a), 1 / len(a))
    for _ in range(1000):
        mu = float(q @ a)
        sigma = math.sqrt(float(q @ (a - mu) ** 2))
        phi = a - ref - t * sigma * (1 + ((mu - a) / sigma) ** 2) / 2
        x = _secular(phi, p)
        new = p / (1 + x * phi)
        if np.max(np.abs(new - q)) < 1e-14:
            return new
        q = new
    return q


def llr_logistic(elo0: float, elo1: float, counts: Sequence[float]) -> float:
    """The generalized log-likelihood ratio of logistic Elo ``elo1`` against ``elo0`` for pentanomial
    (or trinomial L, D, W) ``counts``: fishtest's ``LLR_logistic``."""
    import numpy as np

    n, a, p = _pdf(counts)
    p0, p1 = (mle_expectation(a, p, score_of(e)) for e in (elo0, elo1))
    return n * float(p @ (np.log(p1) - np.log(p0)))


def llr_normalized(nelo0: float, nelo1: float, counts: Sequence[float]) -> float:
    """The generalized log-likelihood ratio of normalized Elo ``nelo1`` against ``nelo0`` for pentanomial
    (or trinomial) ``counts``: fishtest's ``LLR_normalized`` (the t-value statistic; a pair's t-value is
    sqrt(2) times a game's)."""
    import numpy as np

    scale = math.sqrt(2) if len(counts) == 5 else 1.0
    n, a, p = _pdf(counts)
    p0, p1 = (mle_t_value(a, p, 0.5, scale * e / NELO_PER_T) for e in (nelo0, nelo1))
    return n * float(p @ (np.log(p1) - np.log(p0)))


MODELS = ("normalized", "logistic")


class SPRTError(ValueError):
    """An SPRT that cannot be set up: the message says what is wrong, in one line."""


@attrs.frozen
class SPRT:
    """Wald's sequential probability ratio test of H0: Elo = elo0 against H1: Elo = elo1."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "normalized"

    def __attrs_post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise SPRTError(f"elo0 ({self.elo0:g}) must be less than elo1 ({self.elo1:g})")
        for name in ("alpha", "beta"):
            v = getattr(self, name)
            if not 0 < v < 0.5:
                raise SPRTError(f"{name} must be between 0 and 0.5 (exclusive), got {v:g}")
        if self.model not in MODELS:
            raise SPRTError(f"the SPRT model is 'normalized' or 'logistic', got {self.model!r}")

    @classmethod
    def parse(cls, text: str, model: str = "normalized") -> SPRT:
        """From ``elo0,elo1[,alpha,beta]`` (SPRTError for anything else)."""
        parts = [x.strip() for x in text.split(",")]
        if len(parts) not in (2, 4):
            raise SPRTError(f"expected elo0,elo1 or elo0,elo1,alpha,beta, got {text!r}")
        try:
            values = [float(x) for x in parts]
        except ValueError:
            raise SPRTError(f"expected numbers elo0,elo1[,alpha,beta], got {text!r}") from None
        if not all(math.isfinite(v) for v in values):
            raise SPRTError(f"expected finite numbers, got {text!r}")
        if len(values) == 2:
            return cls(values[0], values[1], model=model)
        return cls(values[0], values[1], values[2], values[3], model=model)

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR."""
        return math.log((1 - self.beta) / self.alpha)

    def llr(self, penta: Pentanomial) -> float:
        if penta.pairs == 0:
            return 0.0
        f = llr_normalized if self.model == "normalized" else llr_logistic
        return f(self.elo0, self.elo1, penta.counts)

    def decision(self, llr: float) -> str | None:
        """"H1", "H0", or None while the test goes on."""
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None


def performance(wins: int, draws: int, losses: int) -> tuple[float | None, float | None]:
    """(Elo, half the width of its 95% interval) of a bot's games so far against the field it met,
    relative to its average opponent: for a bot whose games are still being played (a provisional
    row of a live scoreboard), met in a random order so that its games so far are a fair sample
    of its opponents.  The games count as independent trials (win, draw, loss); (None, None)
    without games, an open error (None) where the score is 0 or 1 or the interval reaches them."""
    n = wins + draws + losses
    if n == 0:
        return None, None
    score = (wins + draws / 2) / n
    var = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score ** 2) / n
    sd_mean = math.sqrt(var / n)
    hi, lo = score + Z95 * sd_mean, score - Z95 * sd_mean
    if not 0 < score < 1:  # every game won (or lost): no finite Elo yet
        return None, None
    err = (elo_of(hi) - elo_of(lo)) / 2 if 0 < lo and hi < 1 else None
    return elo_of(score), err


# -- a field: Bradley–Terry ratings ---------------------------------------------------------


class RatedGame(NamedTuple):
    """One game for :func:`rate`: ``winner`` is a player's name or None for a draw; games with the same
    ``pair`` key are one unit of the error estimate (None: a unit of its own)."""

    players: tuple[str, ...]
    winner: str | None
    pair: Hashable = None


def pair_key(players: Sequence[str], index: int) -> tuple[tuple[str, ...], int]:
    """The game pair a scheduled game belongs to: kothkit's schedules (round robins, matches, gauntlets)
    give the two games of a pair the indices 2k and 2k + 1."""
    return (tuple(sorted(players)), index // 2)


def games_of(records: Iterable[Any]) -> Iterable[RatedGame]:
    """:class:`RatedGame` of journal records (anything with ``players``, ``winner`` and ``index``)."""
    for r in records:
        yield RatedGame(tuple(r.players), r.winner, pair_key(r.players, r.index))


@attrs.frozen
class Rating:
    bot: str
    #: Elo, relative to the field's mean (0).
    elo: float
    #: Half the width of the 95% interval.
    error: float
    #: 1 + the number of bots whose interval lies wholly above this one's: equal where intervals overlap.
    rank: int
    games: int

    @property
    def low(self) -> float:
        return self.elo - self.error

    @property
    def high(self) -> float:
        return self.elo + self.error


@attrs.frozen
class Ratings:
    """Ratings of a field, best first; ``los[a][b]`` is the likelihood that a is stronger than b.

    Empty (with ``notes`` saying why) when the games cannot be rated.
    """

    ratings: tuple[Rating, ...] = ()
    los: dict[str, dict[str, float]] = attrs.field(factory=dict)
    notes: tuple[str, ...] = ()
    #: The pairs (units of the error estimate) and games rated.
    units: int = 0
    games: int = 0

    def of(self, bot: str) -> Rating | None:
        return next((r for r in self.ratings if r.bot == bot), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "model": "Bradley-Terry (logistic Elo), draws as half a win, centred on the field's mean",
            "interval": "95%, sandwich covariance with game pairs as clusters",
            "bots": [{"bot": r.bot, "elo": round(r.elo, 2), "error": _round(r.error), "low": _round(r.low),
                      "high": _round(r.high), "rank": r.rank, "games": r.games} for r in self.ratings],
            "los": {a: {b: round(x, 4) for b, x in row.items()} for a, row in self.los.items()},
            "notes": list(self.notes),
        }


#: Virtual drawn games given to every pair of bots that met: a prior that keeps the ratings of a bot
#: that won (or lost) every game finite (BayesElo's prior is virtual draws too).
PRIOR_DRAWS = 1.0


@attrs.define
class PairTally:
    """Games for :func:`rate`, added one at a time (a tournament adds thousands a second).

    A game waits for the other game of its pair; a finished pair is counted by its shape (both
    games' seats and winners), so memory grows with the distinct shapes and the pairs waiting for
    their second game, not with the games.  Two games with one key make a pair; None: a unit alone.
    """

    #: A game is (players, winner); a shape, the games of a pair (or one game alone).
    _open: dict[Hashable, tuple[tuple[str, ...], str | None]] = attrs.field(factory=dict)
    _shapes: dict[tuple[tuple[tuple[str, ...], str | None], ...], int] = attrs.field(factory=dict)

    def add(self, players: tuple[str, ...], winner: str | None, pair: Hashable = None) -> None:
        game = (players, winner)
        shape: tuple[tuple[tuple[str, ...], str | None], ...]
        if pair is not None:
            first = self._open.pop(pair, None)
            if first is None:
                self._open[pair] = game
                return
            shape = (first, game)
        else:
            shape = (game,)
        self._shapes[shape] = self._shapes.get(shape, 0) + 1

    def rate(self, bots: Iterable[str] | None = None) -> Ratings:
        """Ratings of ``bots`` (default: every bot seen) from the games added so far; a game still
        waiting for the other game of its pair counts as a unit of its own."""
        edges: dict[tuple[str, str], list[float]] = {}
        games: dict[str, int] = {}
        wide = 0
        shapes = list(self._shapes.items()) + [((g,), 1) for g in self._open.values()]
        for shape, count in shapes:
            if any(len(p) != 2 for p, _ in shape):
                wide += count * len(shape)
                continue
            x, y = sorted(shape[0][0])
            if x == y or any(set(p) != {x, y} for p, _ in shape):
                # a bot against itself tells nothing; a "pair" of two different bot pairs: units alone
                if x != y:
                    for g in shape:
                        a, b = sorted(g[0])
                        _add_unit(edges, games, a, b, 1, _score(a, g[1]), count)
                continue
            _add_unit(edges, games, x, y, len(shape), sum(_score(x, w) for _, w in shape), count)
        return _fit(edges, games, list(bots) if bots is not None else sorted(games), wide)


def _score(x: str, winner: str | None) -> float:
    return 0.5 if winner is None else 1.0 if winner == x else 0.0


def _add_unit(edges: dict[tuple[str, str], list[float]], games: dict[str, int], x: str, y: str, n: int, s: float,
              count: int) -> None:
    """``count`` units of ``n`` games between x and y (x < y) in which x scored ``s``."""
    e = edges.get((x, y))
    if e is None:
        e = edges[(x, y)] = [0.0] * 6
    # games, score of x, units, sum of s^2, sum of n*s, sum of n^2: all the sandwich needs.
    e[0] += count * n
    e[1] += count * s
    e[2] += count
    e[3] += count * s * s
    e[4] += count * n * s
    e[5] += count * n * n
    games[x] = games.get(x, 0) + count * n
    games[y] = games.get(y, 0) + count * n


def rate(games: Iterable[RatedGame | tuple[Any, ...]], bots: Iterable[str] | None = None) -> Ratings:
    """Bradley–Terry ratings of ``bots`` (default: every player) from ``games``
    (:class:`RatedGame` or ``(players, winner[, pair])`` tuples).  See docs/ratings.md."""
    tally = PairTally()
    for g in games:
        tally.add(tuple(g[0]), g[1], g[2] if len(g) > 2 else None)
    return tally.rate(bots)


def _connected(names: list[str], edges: Iterable[tuple[str, str]]) -> bool:
    seen, todo = {names[0]}, [names[0]]
    nbrs: dict[str, set[str]] = {n: set() for n in names}
    for x, y in edges:
        if x in nbrs and y in nbrs:
            nbrs[x].add(y)
            nbrs[y].add(x)
    while todo:
        for m in nbrs[todo.pop()] - seen:
            seen.add(m)
            todo.append(m)
    return len(seen) == len(names)


def _fit(edges: dict[tuple[str, str], list[float]], games: dict[str, int], names: list[str], wide: int) -> Ratings:
    notes = []
    if wide:
        notes.append(f"{wide} games of more than two seats are not rated (the Bradley-Terry model rates "
                     "two-player games)")
    names = list(dict.fromkeys(names))
    if len(names) < 2:
        return Ratings(notes=(*notes, "ratings need at least two bots"))
    idx = {n: i for i, n in enumerate(names)}
    used = [(idx[x], idx[y], e) for (x, y), e in sorted(edges.items()) if x in idx and y in idx and e[0] > 0]
    if not used or not _connected(names, [(names[i], names[j]) for i, j, _ in used]):
        missing = sorted(n for n in names if not games.get(n))
        why = f"{', '.join(missing)} played no games" if missing else "some bots never met, directly or through others"
        return Ratings(notes=(*notes, f"ratings left out: {why}"))
    n = len(names)
    # Per edge: i, j, games and score of i with the virtual draws (the prior).
    fitted = [(i, j, e[0] + PRIOR_DRAWS, e[1] + PRIOR_DRAWS / 2) for i, j, e in used]
    r = _newton(n, fitted)
    mean = sum(r) / n
    r = [x - mean for x in r]
    bread = [[0.0] * n for _ in range(n)]
    meat = [[0.0] * n for _ in range(n)]
    total_units = 0.0
    for (i, j, gp, _sp), (_, _, e) in zip(fitted, used):
        p = _sigmoid(C * (r[i] - r[j]))
        _add_edge(bread, i, j, C * C * gp * p * (1 - p))
        # Sum over the edge's units (pairs) of (s_u - n_u p)^2, each unit's score residual.
        _add_edge(meat, i, j, C * C * (e[3] - 2 * p * e[4] + p * p * e[5]))
        total_units += e[2]
    # A small-sample correction, as HC1/CR1 do: n - 1 ratings were fitted to these units.
    dof = total_units / (total_units - (n - 1)) if total_units > n - 1 else math.inf
    cov: list[list[float]]
    if math.isfinite(dof):
        hinv = _pinv_laplacian(bread)  # the covariance of the ratings centred on their mean
        cov = [[x * dof for x in row] for row in _matmul(_matmul(hinv, meat), hinv)]
    else:  # as many ratings as pairs: nothing is left to measure the spread with
        cov = [[math.inf if a == b else 0.0 for b in range(n)] for a in range(n)]
    err = [Z95 * math.sqrt(max(cov[k][k], 0.0)) for k in range(n)]
    order = sorted(range(n), key=lambda k: (-r[k], names[k]))
    low = [r[k] - err[k] for k in range(n)]
    high = [r[k] + err[k] for k in range(n)]
    ratings = []
    for k in order:
        rank = 1 + sum(1 for m in range(n) if m != k and low[m] > high[k])
        ratings.append(Rating(bot=names[k], elo=r[k], error=err[k], rank=rank, games=int(games.get(names[k], 0))))
    los: dict[str, dict[str, float]] = {}
    for a in order:
        row = los[names[a]] = {}
        for b in order:
            if a != b:
                v = cov[a][a] + cov[b][b] - 2 * cov[a][b]
                d = r[a] - r[b]
                if math.isinf(v) or math.isnan(v):
                    row[names[b]] = 0.5
                else:
                    row[names[b]] = _ndtr(d / math.sqrt(v)) if v > 0 else (1.0 if d > 0 else 0.0 if d < 0 else 0.5)
    if total_units <= n - 1:
        notes.append("too few game pairs for an error estimate")
    return Ratings(ratings=tuple(ratings), los=los, notes=tuple(notes), units=int(total_units),
                   games=int(sum(e[0] for _, _, e in used)))


# The fit is pure Python: a field has a few bots, and importing numpy with scipy.optimize takes
# longer than the ratings of such a field take to compute.  Past NUMPY_FROM bots, the matrix work
# (cubic in the bots) goes to numpy.
NUMPY_FROM = 24


def _newton(n: int, fitted: list[tuple[int, int, float, float]]) -> list[float]:
    """The ratings (the first bot's at 0) that minimize the negative log-likelihood of ``fitted``
    (i, j, games, score of i): Newton's method with a backtracking line search, on a strictly
    convex function (the prior's virtual draws keep every rating finite)."""

    def nll(r: list[float]) -> float:
        f = 0.0
        for i, j, gp, sp in fitted:
            z = C * (r[i] - r[j])
            # -log p = softplus(-z), -log(1 - p) = softplus(z): stable for any z.
            f += sp * _softplus(-z) + (gp - sp) * _softplus(z)
        return f

    r = [0.0] * n
    f = nll(r)
    for _ in range(100):
        grad = [0.0] * n
        hess = [[0.0] * n for _ in range(n)]
        for i, j, gp, sp in fitted:
            p = _sigmoid(C * (r[i] - r[j]))
            resid = C * (sp - gp * p)
            grad[i] -= resid
            grad[j] += resid
            _add_edge(hess, i, j, C * C * gp * p * (1 - p))
        # The first rating stays at 0: the others move by the Newton step of the rest.
        step = _solve([row[1:] for row in hess[1:]], grad[1:])
        t = 1.0
        while True:
            trial = [0.0] + [x - t * d for x, d in zip(r[1:], step)]
            ft = nll(trial)
            if ft <= f or t < 1e-10:
                break
            t /= 2
        moved = max(abs(t * d) for d in step)
        r, f = trial, min(f, ft)
        if moved < 1e-10:
            break
    return r


def _softplus(x: float) -> float:
    return x + math.log1p(math.exp(-x)) if x > 0 else math.log1p(math.exp(x))


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1 / (1 + math.exp(-z))
    e = math.exp(z)
    return e / (1 + e)


def _ndtr(x: float) -> float:
    """The standard normal distribution function."""
    return 0.5 * math.erfc(-x / math.sqrt(2))


def _add_edge(m: list[list[float]], i: int, j: int, w: float) -> None:
    """m += w (e_i - e_j)(e_i - e_j)^T: one edge of a weighted graph's Laplacian."""
    m[i][i] += w
    m[j][j] += w
    m[i][j] -= w
    m[j][i] -= w


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """x with a x = b, for symmetric positive definite ``a`` (Cholesky)."""
    n = len(a)
    if n >= NUMPY_FROM:
        import numpy as np

        return [float(x) for x in np.linalg.solve(np.array(a), np.array(b))]
    low = _cholesky(a)
    y = [0.0] * n
    for i in range(n):
        y[i] = (b[i] - sum(low[i][k] * y[k] for k in range(i))) / low[i][i]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (y[i] - sum(low[k][i] * x[k] for k in range(i + 1, n))) / low[i][i]
    return x


def _cholesky(a: list[list[float]]) -> list[list[float]]:
    n = len(a)
    low = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            s = a[i][j] - sum(low[i][k] * low[j][k] for k in range(j))
            low[i][j] = math.sqrt(s) if i == j else s / low[j][j]
    return low


def _pinv_laplacian(m: list[list[float]]) -> list[list[float]]:
    """The pseudo-inverse of the Laplacian ``m`` of a connected graph: (m + J/n)^-1 - J/n, J all ones."""
    n = len(m)
    if n >= NUMPY_FROM:
        import numpy as np

        inv = np.linalg.pinv(np.array(m))
        return [[float(x) for x in row] for row in inv]
    shifted = [[x + 1 / n for x in row] for row in m]
    cols = [_solve(shifted, [1.0 if k == c else 0.0 for k in range(n)]) for c in range(n)]
    return [[cols[c][k] - 1 / n for c in range(n)] for k in range(n)]


def _matmul(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    if len(a) >= NUMPY_FROM:
        import numpy as np

        return [[float(x) for x in row] for row in np.array(a) @ np.array(b)]
    cols = list(zip(*b))
    return [[sum(x * y for x, y in zip(row, col)) for col in cols] for row in a]


# -- games of any number of seats: places, openskill ratings, the crosstable ---------------------


def result_places(result: Any) -> tuple[int, ...]:
    """Each seat's place in a finished game (1 = first; ties share a place), from a
    :class:`kothkit.store.records.GameResult` or anything with ``players`` and ``winner``: its
    ``seat_places`` if it has them; else from ``seat_points`` (more is better, equal points share a
    place); else from ``winner`` (the winner 1, every other seat 2; a draw: every seat 1).
    ValueError, naming the game, when its places or points are not one a seat."""
    players = tuple(result.players)
    for field in ("seat_places", "seat_points"):
        given = getattr(result, field, None)
        if given is not None and len(given) != len(players):
            raise ValueError(f"game {getattr(result, 'id', '?')}: {len(given)} {field} for {len(players)} seats")
    places = getattr(result, "seat_places", None)
    if places is not None:
        return tuple(int(x) for x in places)
    points = getattr(result, "seat_points", None)
    if points is not None:
        return tuple(1 + sum(1 for q in points if q > p) for p in points)
    winner = result.winner
    return tuple(1 if winner is None or name == winner else 2 for name in players)


@attrs.frozen
class SkillRating:
    """A bot's openskill rating: its skill is believed to be about ``mu``, give or take ``sigma``."""

    bot: str
    #: The skill's mean, on openskill's scale (a new bot: 25).
    mu: float
    #: The skill's uncertainty, one standard deviation (a new bot: 25/3).
    sigma: float
    #: mu - 3 sigma: a skill the bot has, almost surely (a new bot: 0); what :func:`rate_tables` ranks by.
    ordinal: float
    #: The games rated.
    games: int

    def to_json(self) -> dict[str, Any]:
        return {"bot": self.bot, "mu": round(self.mu, 3), "sigma": round(self.sigma, 3),
                "ordinal": round(self.ordinal, 3), "games": self.games}


def rate_tables(results: Iterable[Any], bots: Iterable[str] | None = None) -> list[SkillRating]:
    """openskill (Plackett-Luce) ratings of ``bots`` (default: every bot that played) from the places
    of ``results`` (:func:`result_places`), rated one game after another in the order given (give
    them in schedule order, a record's ``index`` or a result's ``place``, for the same ratings at any
    ``--jobs``).  Best first: by ordinal, then by name.  A game in which a bot holds two seats is
    left out (a bot cannot place above itself).  The skills do not drift between games (tau = 0: a
    bot's code is the same in every game of a run).  See docs/ratings.md."""
    from openskill.models import PlackettLuce

    model = PlackettLuce(tau=0.0)
    ratings: dict[str, Any] = {}
    games: dict[str, int] = {}
    for result in results:
        _rate_one(model, ratings, games, result)
    return _skills(model, ratings, games, bots)


def _rate_one(model: Any, ratings: dict[str, Any], games: dict[str, int], result: Any) -> None:
    """Rate one game on top of ``ratings`` and ``games`` (a bot's ratings and games rated so far)."""
    players = tuple(result.players)
    if len(players) < 2 or len(set(players)) != len(players):
        return
    teams = [[ratings[p] if p in ratings else model.rating(name=p)] for p in players]
    new = model.rate(teams, ranks=[float(x) for x in result_places(result)])
    for p, team in zip(players, new):
        ratings[p] = team[0]
        games[p] = games.get(p, 0) + 1


def _skills(model: Any, ratings: dict[str, Any], games: dict[str, int],
            bots: Iterable[str] | None = None) -> list[SkillRating]:
    names = list(dict.fromkeys(bots)) if bots is not None else sorted(ratings)
    out = []
    for n in names:
        r = ratings[n] if n in ratings else model.rating(name=n)
        out.append(SkillRating(bot=n, mu=float(r.mu), sigma=float(r.sigma), ordinal=float(r.ordinal()),
                               games=games.get(n, 0)))
    return sorted(out, key=lambda r: (-r.ordinal, r.bot))


@attrs.define
class TableRater:
    """:func:`rate_tables` kept up to date as games are counted (the host's Scoreboard): each
    :meth:`update` is given every counted game with its key (the order to rate them in: a game's
    schedule index, then its id) and rates only what changed on top of the ratings kept.  Games
    that come after every rated one (the usual case: the schedule's next games) are rated on top
    of the kept ratings; a game that comes before one already rated (games finish out of order
    at ``--jobs`` > 1) or a game gone or moved (a bot dropped or replaced) makes it rate again
    from the last state kept at or before that place (one every :attr:`every` games), else from
    the start.  The ratings are those of :func:`rate_tables` over the games in key order, to the
    last bit, whatever the order the games came in."""

    #: Games between two states kept (a state: every bot's rating, a few kilobytes), and the most
    #: states kept (past it, every other one goes, and the states are kept twice as far apart).
    every: int = 64
    most: int = 64
    #: The rated games' keys, seats and places, in order.
    keys: list[Any] = attrs.field(factory=list)
    #: Games rated by the last :meth:`update`; updates that rated on top of all the kept ratings,
    #: from an earlier state kept, and from the start (with games rated before: a full recompute).
    rated: int = 0
    on_top: int = 0
    from_kept: int = 0
    restarts: int = 0
    _model: Any = None
    _ratings: dict[str, Any] = attrs.field(factory=dict)
    _games: dict[str, int] = attrs.field(factory=dict)
    #: (games rated, ratings, games) at every ``every``-th game.
    _kept: list[tuple[int, dict[str, Any], dict[str, int]]] = attrs.field(factory=list)
    _stride: int = attrs.field(init=False)

    def __attrs_post_init__(self) -> None:
        self._stride = self.every

    def update(self, keyed: Iterable[tuple[Any, Any]], bots: Iterable[str] | None = None) -> list[SkillRating]:
        """The ratings of ``keyed`` ((key, result) of every game counted now, in any order), as
        :func:`rate_tables` of the results in key order gives them."""
        if self._model is None:
            from openskill.models import PlackettLuce

            self._model = PlackettLuce(tau=0.0)
        games = sorted(keyed, key=lambda kr: kr[0])
        # (a game is the same while its key, seats and places are: one placed again is rated again)
        keys = [(k, tuple(r.players), result_places(r)) for k, r in games]
        same = 0  # the rated games still in their places
        for old, new in zip(self.keys, keys):
            if old != new:
                break
            same += 1
        if same < len(self.keys):  # rate again from the last state kept before the first change
            while self._kept and self._kept[-1][0] > same:
                self._kept.pop()
            start, ratings, counts = self._kept[-1] if self._kept else (0, {}, {})
            self._ratings, self._games = dict(ratings), dict(counts)
            if start:
                self.from_kept += 1
            else:
                self.restarts += 1
        else:
            start = len(self.keys)
            self.on_top += start > 0
        self.rated = len(games) - start
        for i in range(start, len(games)):
            _rate_one(self._model, self._ratings, self._games, games[i][1])
            if (i + 1) % self._stride == 0:
                self._kept.append((i + 1, dict(self._ratings), dict(self._games)))
                if len(self._kept) > self.most:  # every other one goes: twice as far apart from now on
                    self._kept = self._kept[1::2]
                    self._stride *= 2
        self.keys = keys
        return _skills(self._model, self._ratings, self._games, bots)


def placed_above(results: Iterable[Any]) -> dict[tuple[str, str], tuple[int, int]]:
    """The crosstable of games of any number of seats: ``(a, b) -> (above, games)``, the games in
    which a and b both sat and how many of them a placed above b (:func:`result_places`; a tie is
    neither above).  Both orders are keys: ``above(a, b) + above(b, a) + ties == games``.  In a
    two-seat game it is the wins of a against b."""
    table: dict[tuple[str, str], list[int]] = {}
    for result in results:
        players = tuple(result.players)
        places = result_places(result)
        for i, a in enumerate(players):
            for j, b in enumerate(players):
                if i != j and a != b:
                    cell = table.setdefault((a, b), [0, 0])
                    cell[0] += places[i] < places[j]
                    cell[1] += 1
    return {k: (v[0], v[1]) for k, v in table.items()}
