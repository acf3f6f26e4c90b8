"""Bradley–Terry ratings of a field (kothkit.store.ratings.rate): closed forms, coverage, tied ranks, notes.

The coverage test simulates whole round robins of game pairs from known pair-outcome probabilities
(numpy, seeded), with the two games of a pair correlated as a shared seed slot makes them: the 95%
intervals, clustered by pair, must cover the true ratings about 95% of the time.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize

from kothkit.store.ratings import C, NUMPY_FROM, PRIOR_DRAWS, Z95, RatedGame, elo_of, games_of, pair_key, rate


def two_bot_games(pairs):
    """Games of bots a and b from a list of a's points per pair (0, 0.5, 1, 1.5 or 2)."""
    games = []
    for k, pts in enumerate(pairs):
        for g, s in enumerate((min(pts, 1.0), pts - min(pts, 1.0))):
            winner = "a" if s == 1 else "b" if s == 0 else None
            games.append(RatedGame(("a", "b") if g == 0 else ("b", "a"), winner, k))
    return games


def test_two_bots_closed_form():
    pairs = [2, 1.5, 1, 1, 0.5, 2, 1.5, 1, 0, 2]
    r = rate(two_bot_games(pairs))
    g, s = 2 * len(pairs), sum(pairs)
    # With the prior's virtual draws, the fitted difference is the Elo of the (prior-shrunk) score.
    p = (s + PRIOR_DRAWS / 2) / (g + PRIOR_DRAWS)
    diff = elo_of(p)
    a, b = r.of("a"), r.of("b")
    assert a.elo == pytest.approx(diff / 2, abs=1e-6) and b.elo == pytest.approx(-diff / 2, abs=1e-6)
    # Sandwich: Var(diff) = sum over pairs of (s_k - 2p)^2 / (C^2 (g + prior) p (1 - p))^2 * U / (U - 1)
    meat = sum((x - 2 * p) ** 2 for x in pairs)
    bread = (g + PRIOR_DRAWS) * p * (1 - p)
    var = meat / bread**2 / C**2 * len(pairs) / (len(pairs) - 1)
    assert a.error == pytest.approx(Z95 * math.sqrt(var) / 2, rel=1e-6)
    assert r.los["a"]["b"] + r.los["b"]["a"] == pytest.approx(1)
    assert r.los["a"]["b"] > 0.5 and r.ratings[0].bot == "a"


def test_pairs_are_the_unit_of_the_error():
    """The same games, counted as pairs that always split (a win each) or as independent games:
    split pairs carry no evidence of a difference beyond the pair, so the interval is narrower."""
    split = [RatedGame(("a", "b"), "a", k) for k in range(20)] + [RatedGame(("b", "a"), "b", k) for k in range(20)]
    alone = [RatedGame(g.players, g.winner, None) for g in split]
    assert rate(split).of("a").error < rate(alone).of("a").error / 3


def true_ratings(strength):
    """The centred ratings a Bradley–Terry fit converges to when pair i-j scores s_ij (independent
    of kothkit: scipy's root finder on the score equations)."""
    n = len(strength)

    def eqs(x):
        r = np.concatenate(([0.0], x))
        f = [sum(s_ij - 1 / (1 + 10 ** (-(r[i] - r[j]) / 400)) for j, s_ij in enumerate(row) if j != i)
             for i, row in enumerate(strength)]
        return f[1:]

    r = np.concatenate(([0.0], optimize.root(eqs, np.zeros(n - 1), tol=1e-12).x))
    return r - r.mean()


def simulated(rng, elos, pairs, same=0.5):
    """A round robin: ``pairs`` game pairs per bot pair; a game's result is a draw (10%) or a win by
    Bradley-Terry odds; with probability ``same`` the pair's second game repeats the first (a seed slot
    shared by both games)."""
    names = [f"b{i}" for i in range(len(elos))]
    games = []
    for i in range(len(elos)):
        for j in range(i + 1, len(elos)):
            p = 1 / (1 + 10 ** (-(elos[i] - elos[j]) / 400))
            pw = p - 0.05  # P(win) with 10% draws keeps the expected score p
            for k in range(pairs):
                first = rng.choice(3, p=[1 - pw - 0.1, 0.1, pw])
                second = first if rng.random() < same else rng.choice(3, p=[1 - pw - 0.1, 0.1, pw])
                for g, res in enumerate((first, second)):
                    players = (names[i], names[j]) if g == 0 else (names[j], names[i])
                    winner = names[i] if res == 2 else names[j] if res == 0 else None
                    games.append(RatedGame(players, winner, (i, j, k)))
    return names, games


def test_intervals_cover_the_truth_about_95_percent_of_the_time():
    rng = np.random.default_rng(2024)
    elos = np.array([150.0, 50.0, 0.0, -200.0])
    truth = elos - elos.mean()
    covered = total = 0
    for _ in range(150):
        names, games = simulated(rng, elos, pairs=15)
        r = rate(games)
        for k, name in enumerate(names):
            x = r.of(name)
            covered += x.low <= truth[k] <= x.high
            total += 1
    assert 0.90 <= covered / total <= 0.99, covered / total


def test_true_ratings_of_a_known_score_matrix_are_found():
    elos = np.array([100.0, 0.0, -100.0])
    s = [[0.5 if i == j else 1 / (1 + 10 ** (-(elos[i] - elos[j]) / 400)) for j in range(3)] for i in range(3)]
    assert true_ratings(s) == pytest.approx(elos - elos.mean(), abs=1e-6)


def test_ranks_are_tied_where_intervals_overlap():
    rng = np.random.default_rng(7)
    names, games = simulated(rng, np.array([200.0, 190.0, -200.0]), pairs=30)
    r = rate(games)
    assert [x.rank for x in r.ratings] == [1, 1, 3]
    assert r.ratings[2].bot == "b2"
    top = r.ratings[0]
    assert all(r.los[top.bot][x.bot] > 0.5 for x in r.ratings[1:])


def test_a_bot_that_won_everything_gets_a_finite_rating():
    games = [RatedGame(("a", "b"), "a", k) for k in range(10)] + [RatedGame(("b", "a"), "a", k) for k in range(10)]
    r = rate(games)
    assert math.isfinite(r.of("a").elo) and r.of("a").elo > 300


def test_what_cannot_be_rated_is_left_out_with_a_note():
    wide = rate([RatedGame(("a", "b", "c"), "a")] + two_bot_games([2, 1]))
    assert wide.of("a") is not None and "more than two seats" in wide.notes[0]
    assert rate([], bots=["a"]).notes == ("ratings need at least two bots",)
    apart = rate(two_bot_games([1, 2]) + [RatedGame(("c", "d"), "c")])
    assert not apart.ratings and "never met" in apart.notes[0]
    idle = rate(two_bot_games([1, 2]), bots=["a", "b", "z"])
    assert not idle.ratings and "z played no games" in idle.notes[0]


def test_journal_records_pair_by_their_schedule_index():
    class R:
        def __init__(self, players, winner, index):
            self.players, self.winner, self.index = players, winner, index

    got = list(games_of([R(("x", "y"), "x", 4), R(("y", "x"), None, 5)]))
    assert got[0].pair == got[1].pair == pair_key(("y", "x"), 5)


def test_one_pair_of_two_bots_has_no_error_estimate():
    r = rate(two_bot_games([2]))
    assert r.of("a").elo > 0 and math.isinf(r.of("a").error) and r.los["a"]["b"] == 0.5
    assert [x.rank for x in r.ratings] == [1, 1] and "too few game pairs" in r.notes[-1]
    assert r.to_json()["bots"][0]["error"] is None


def test_a_pair_of_two_different_bot_pairs_counts_as_two_games_alone():
    # Games sharing a pair key but not their bots (a schedule's key reused): each is a unit of its own.
    mixed = [RatedGame(("a", "b"), "a", 0), RatedGame(("c", "a"), "c", 0)]
    alone = [RatedGame(("a", "b"), "a"), RatedGame(("c", "a"), "c")]
    more = two_bot_games([2, 1, 0, 1.5]) + [RatedGame(("b", "c"), None, k) for k in range(10, 14)]
    assert rate(mixed + more) == rate(alone + more)


@pytest.mark.parametrize("bots", [5, NUMPY_FROM + 2])
def test_the_fit_solves_the_score_equations_and_its_errors_are_the_sandwich(bots):
    """The pure-Python fit (and past NUMPY_FROM bots, its numpy linear algebra) against numpy from the
    definitions: the fitted ratings zero the gradient of the likelihood with the prior's virtual draws,
    and the errors are those of pinv(bread) meat pinv(bread) with the small-sample correction."""
    rng = np.random.default_rng(bots)
    names, games = simulated(rng, rng.uniform(-150, 150, bots), pairs=3)
    r = rate(games)
    idx = {n: k for k, n in enumerate(names)}
    elo = np.array([r.of(n).elo for n in names])
    assert abs(elo.mean()) < 1e-9
    grad, bread, meat = np.zeros(bots), np.zeros((bots, bots)), np.zeros((bots, bots))
    units: dict = {}
    for g in games:
        units.setdefault(g.pair, []).append(g)
    for unit in units.values():
        x, y = sorted(unit[0].players)
        i, j = idx[x], idx[y]
        p = 1 / (1 + 10 ** (-(elo[i] - elo[j]) / 400))
        s = sum(1.0 if g.winner == x else 0.5 if g.winner is None else 0.0 for g in unit)
        d = np.zeros(bots)
        d[i], d[j] = C, -C
        grad += (s - len(unit) * p) * d
        meat += (s - len(unit) * p) ** 2 * np.outer(d, d)
    for i in range(bots):
        for j in range(i + 1, bots):
            p = 1 / (1 + 10 ** (-(elo[i] - elo[j]) / 400))
            grad[i] += C * PRIOR_DRAWS * (0.5 - p)
            grad[j] -= C * PRIOR_DRAWS * (0.5 - p)
            d = np.zeros(bots)
            d[i], d[j] = C, -C
            bread += (sum(1 for g in games if set(g.players) == {names[i], names[j]}) + PRIOR_DRAWS) * p * (1 - p) \
                * np.outer(d, d)
    assert np.abs(grad).max() < 1e-8
    n_units = len(units)
    h = np.linalg.pinv(bread)
    cov = h @ meat @ h * n_units / (n_units - (bots - 1))
    assert [r.of(n).error for n in names] == pytest.approx(Z95 * np.sqrt(np.diag(cov)), rel=1e-6)
    a, b = r.ratings[0].bot, r.ratings[-1].bot
    v = cov[idx[a], idx[a]] + cov[idx[b], idx[b]] - 2 * cov[idx[a], idx[b]]
    assert r.los[a][b] == pytest.approx(0.5 * math.erfc(-(elo[idx[a]] - elo[idx[b]]) / math.sqrt(2 * v)), abs=1e-9)
