"""Match statistics and the SPRT against published test vectors.

The inputs (pentanomial and trinomial counts, Elo bounds) are the documented examples of the reference
code's own tests:

* fastchess ``app/tests/elo_test.cpp`` ("EloPentanomial 1-3": Elo, error, nElo, nElo error, LOS);
* fastchess ``app/tests/sprt_test.cpp`` ("normalized/logistic pentanomial/trinomial 1-2": the LLR),
  whose model is fishtest's ``server/fishtest/stats/LLRcalc.py`` (``LLR_normalized``, ``LLR_logistic``).

fastchess's ``Stats`` takes pentanomial counts as ``(LL, LD, WL, DD, WD, WW)`` and game counts as
``(wins, losses, draws)``; kothkit's pentanomial is ``[LL, LD, WL+DD, WD, WW]``.

The published values have two decimals (checked here to fastchess's own tolerance, 1% relative).  To
1e-6, kothkit is checked against the same quantities computed here a different way, from the
definitions: Elo and errors from the closed formulas written out below, and each LLR as a
difference of profile log-likelihoods found through convex duality with scipy's generic optimizers
(empirical likelihood: the best distribution with a given mean, or a given mean and variance, is a
tilt of the empirical one whose log-likelihood is ``-max over the tilt``), not through the secular
equation and fixed point that kothkit (and fishtest) use.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, stats

from kothkit.store.ratings import SPRT, Pentanomial, SPRTError, llr_logistic, llr_normalized, match_stats

# -- independent reference computations ---------------------------------------------------


def ref_pdf(counts):
    """Empty classes count 1e-3 games (fishtest's and fastchess's regularization)."""
    c = np.array([x if x else 1e-3 for x in counts], dtype=float)
    return c.sum(), np.linspace(0, 1, len(c)), c / c.sum()


def ref_tilt(a, p, constraints):
    """max over the tilt l of sum p log(1 + l . g(a)): minus the profile log-likelihood (plus a constant)
    of the distributions with E[g] = 0, by a bounded Newton (trust-region) search of scipy."""
    g = np.array([c(a) for c in constraints])  # k x n

    def neg(l):
        d = 1 + l @ g
        if np.any(d <= 0):
            return np.inf, np.zeros_like(l), np.zeros((len(l), len(l)))
        return -float(p @ np.log(d)), -(g / d) @ p, (g / d) @ np.diag(p) @ (g / d).T

    # Where no distribution on the support meets the constraints (a sigma too large or too small for
    # the mean), the tilt has no maximum: it grows like log |l| without end and the search would run
    # to any maxiter.  Every feasible search here stops (by gtol or lost precision) within 80 steps;
    # after 200 an unbounded one is far above every feasible value, which is all the outer search
    # (a minimum over sigma of the tilt) needs: the LLRs are the same to the last bit as with 5000.
    res = optimize.minimize(lambda l: neg(l)[0], np.zeros(len(constraints)), jac=lambda l: neg(l)[1],
                            hess=lambda l: neg(l)[2], method="trust-exact",
                            options={"gtol": 1e-15, "maxiter": 200})
    return -res.fun


def ref_loglik_mean(a, p, s):
    return -ref_tilt(a, p, [lambda a: a - s])


def ref_loglik_t(a, p, ref, t):
    """Profile log-likelihood of (mu - ref) / sigma = t: for each sigma the distributions with mean
    mu = ref + t sigma and standard deviation sigma, maximized over sigma (t = 0: the mean alone is fixed).
    Searched over sigma, not mu: for small t, mu moves little while sigma moves much."""
    if t == 0:
        return ref_loglik_mean(a, p, ref)

    def at(sigma):
        mu = ref + t * sigma
        # Constraints scaled by sigma: the same set of distributions, multipliers of order 1.
        return -ref_tilt(a, p, [lambda a: (a - mu) / sigma, lambda a: ((a - mu) ** 2 - sigma**2) / sigma**2])

    top = min((1 - ref) / t, 0.5) if t > 0 else min(ref / -t, 0.5)
    res = optimize.minimize_scalar(lambda sigma: -at(sigma), bounds=(1e-9, top - 1e-9), method="bounded",
                                   options={"xatol": 1e-13})
    return -res.fun


def ref_llr_logistic(elo0, elo1, counts):
    n, a, p = ref_pdf(counts)
    s0, s1 = (1 / (1 + 10 ** (-e / 400)) for e in (elo0, elo1))
    return n * (ref_loglik_mean(a, p, s1) - ref_loglik_mean(a, p, s0))


def ref_llr_normalized(nelo0, nelo1, counts):
    n, a, p = ref_pdf(counts)
    scale = math.sqrt(2) if len(counts) == 5 else 1  # a pair's t-value is sqrt(2) times a game's
    t0, t1 = (scale * e * math.log(10) / 800 for e in (nelo0, nelo1))
    return n * (ref_loglik_t(a, p, 0.5, t1) - ref_loglik_t(a, p, 0.5, t0))


def ref_elo_stats(ll, ld, wl_dd, wd, ww):
    """fastchess's EloPentanomial, written out from its definitions."""
    n = ll + ld + wl_dd + wd + ww
    score = (0.25 * ld + 0.5 * wl_dd + 0.75 * wd + ww) / n
    var = (ll * score**2 + ld * (0.25 - score) ** 2 + wl_dd * (0.5 - score) ** 2 + wd * (0.75 - score) ** 2
           + ww * (1 - score) ** 2) / n
    z = stats.norm.ppf(0.975)
    half = z * math.sqrt(var / n)
    elo = lambda s: 400 * math.log10(s / (1 - s))  # noqa: E731
    nelo = lambda s: (s - 0.5) / math.sqrt(2 * var) * 800 / math.log(10)  # noqa: E731
    los = stats.norm.cdf((score - 0.5) / math.sqrt(var / n))
    return (elo(score), (elo(score + half) - elo(score - half)) / 2, nelo(score),
            (nelo(score + half) - nelo(score - half)) / 2, los)


# -- the vectors ----------------------------------------------------------------------------

# elo_test.cpp: Stats(LL, LD, WL, DD, WD, WW) -> nElo, nElo error, Elo, error, LOS (percent).
ELO_VECTORS = [
    ((34, 54, 31, 32, 64, 75), 57.94, 28.28, 55.58, 27.65, 100.00),
    ((332, 433, 457, 41, 333, 334), -9.17, 10.96, -8.64, 10.33, 5.05),
    ((7895, 8757, 5485, 200, 568, 9999), -19.01, 2.65, -21.04, 2.95, None),
]

# sprt_test.cpp: (model, counts in fastchess's order, elo0, elo1, published LLR).
LLR_VECTORS = [
    ("normalized", "penta", (365, 16618, 36029, 200, 16974, 390), 0, 2, 2.25),
    ("normalized", "penta", (127, 4883, 10311, 401, 5150, 104), -1.75, 0.25, 3.01),
    ("logistic", "penta", (223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, -3.07),
    ("logistic", "penta", (871, 26175, 55003, 980, 26678, 821), 0, 2, -4.98),
    ("normalized", "tri", (36433, 36027, 68692), 0, 2, 0.92),
    ("normalized", "tri", (10871, 10650, 20431), -1.75, 0.25, 2.30),
    ("logistic", "tri", (21404, 21184, 40708), 0.5, 2.5, -1.57),
    ("logistic", "tri", (57433, 57030, 106593), 0, 2, -2.59),
]


def ours(kind, counts):
    """kothkit's class order: [LL, LD, WL+DD, WD, WW], or [L, D, W] for games."""
    if kind == "penta":
        ll, ld, wl, dd, wd, ww = counts
        return (ll, ld, wl + dd, wd, ww)
    w, l, d = counts
    return (l, d, w)


@pytest.mark.parametrize("counts, nelo, nerr, elo, err, los", ELO_VECTORS)
def test_elo_error_nelo_and_los_of_fastchess_vectors(counts, nelo, nerr, elo, err, los):
    ll, ld, wl, dd, wd, ww = counts
    s = match_stats(Pentanomial(ll, ld, wl + dd, wd, ww))
    got = (s.elo, s.elo_error, s.nelo, s.nelo_error, s.los)
    ref = ref_elo_stats(ll, ld, wl + dd, wd, ww)
    assert got == pytest.approx(ref, rel=0, abs=1e-6)
    assert (s.nelo, s.nelo_error, s.elo, s.elo_error) == pytest.approx((nelo, nerr, elo, err), rel=0.01)
    if los is not None:
        assert f"{100 * s.los:.2f}" == f"{los:.2f}"


@pytest.mark.parametrize("model, kind, counts, elo0, elo1, published", LLR_VECTORS)
def test_llr_of_fastchess_vectors(model, kind, counts, elo0, elo1, published):
    c = ours(kind, counts)
    f, ref = (llr_normalized, ref_llr_normalized) if model == "normalized" else (llr_logistic, ref_llr_logistic)
    got = f(elo0, elo1, c)
    assert got == pytest.approx(ref(elo0, elo1, c), rel=0, abs=1e-6)
    assert got == pytest.approx(published, rel=0.01)
    if kind == "penta":
        assert SPRT(elo0, elo1, model=model).llr(Pentanomial(*c)) == got


def test_llr_of_one_sided_results_follows_the_definition():
    """Two more of sprt_test.cpp's inputs: 104 pairs all won ([0, 5]) and 16,700 draws ([0, 5]).
    fastchess's test expects 2.94 and 2.97; the definition gives 2.09 and -3.45.  Every class but one is
    the 1e-3 regularization there, so the MLE's root sits within 1e-7 of a pole of the secular equation,
    which is fastchess's root tolerance.  That the draws' LLR must be negative follows from the
    definition alone: the empirical distribution (mean exactly 1/2) is H0's maximum itself."""
    allwon, drawn = (0, 0, 0, 0, 104), (0, 16700, 0)
    assert llr_normalized(0, 5, allwon) == pytest.approx(ref_llr_normalized(0, 5, allwon), abs=1e-6)
    assert llr_normalized(0, 5, drawn) == pytest.approx(ref_llr_normalized(0, 5, drawn), abs=1e-6)
    assert llr_normalized(0, 5, drawn) < 0 < llr_normalized(0, 5, allwon)


def test_sprt_bounds_and_decisions():
    s = SPRT(0, 10)
    assert (s.lower, s.upper) == pytest.approx((math.log(0.05 / 0.95), math.log(0.95 / 0.05)), abs=1e-12)
    assert s.decision(3.0) == "H1" and s.decision(-3.0) == "H0" and s.decision(0.0) is None
    t = SPRT.parse("-1, 4, 0.1, 0.2", "logistic")
    assert (t.elo0, t.elo1, t.alpha, t.beta, t.model) == (-1, 4, 0.1, 0.2, "logistic")
    assert (t.lower, t.upper) == pytest.approx((math.log(0.2 / 0.9), math.log(0.8 / 0.1)))


@pytest.mark.parametrize("text, message", [
    ("10,0", "elo0 (10) must be less than elo1 (0)"),
    ("5,5", "elo0 (5) must be less than elo1 (5)"),
    ("0,10,0.5,0.05", "alpha must be between 0 and 0.5"),
    ("0,10,0.05,0", "beta must be between 0 and 0.5"),
    ("0,10,-0.1,0.05", "alpha must be between 0 and 0.5"),
    ("0", "expected elo0,elo1"),
    ("0,x", "expected numbers"),
])
def test_bad_sprt_settings(text, message):
    with pytest.raises(SPRTError, match=message.replace("(", r"\(").replace(")", r"\)")):
        SPRT.parse(text)


def test_statistics_of_no_pairs_and_of_one_sided_pairs():
    assert match_stats(Pentanomial()).elo is None
    s = match_stats(Pentanomial(ww=10), wins=20)
    assert s.score == 1 and s.elo is None and s.nelo is None and s.points == 20


def test_the_report_leaves_draws_out_for_a_game_without_draws():
    from kothkit.cli.headtohead import block

    s = match_stats(Pentanomial(1, 0, 3, 0, 2), wins=7, losses=5, draws=0)
    with_draws, without = block("a vs b", s, draws=True), block("a vs b", s, draws=False)
    assert "DrawRatio: 0.00 %" in with_draws and "Draws: 0" in with_draws
    assert "DrawRatio" not in without and "Draws" not in without
    assert "Ptnml(0-2): [1, 0, 3, 0, 2]" in without and "Points: 7.0 (58.33 %)" in without
