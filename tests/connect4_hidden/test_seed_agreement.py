"""The four example bots score the same under kothkit's match as under the seed's controller.

Both run the seed's schedule (every ordered pair once per round) for ROUNDS
rounds: the seed's ``run_tournament`` with its own bots and the global
``random`` (seeded, for a repeatable test), and kothkit's Connect4Match with
the bundled bots as FunctionBots, each reseeded per game.  The two are
independent samples, so each bot's mean score must agree within a few
standard errors of the difference.  benchmarks/bench_connect4.py --full does
the same over the seed's 10,000 rounds.
"""

from __future__ import annotations

import math
import random

import c4_inproc as inproc
import c4_seed_controller as seed

ROUNDS = 2000
#: Standard errors allowed: a false alarm at 4.5 is about one in 150,000 per bot.
Z = 4.5


def mean_and_variance(counts):
    draws, losses, wins = counts
    n = draws + losses + wins
    mean = (wins - losses) / n
    return mean, (wins + losses) / n - mean * mean, n


def test_example_bots_agree_with_the_seed_controller():
    saved = random.getstate()
    try:
        random.seed(20240613)
        theirs = seed.run_tournament(seed.players, rounds=ROUNDS)
    finally:
        random.setstate(saved)
    ours = inproc.round_robin([inproc.bundled(n) for n in inproc.EXAMPLES], rounds=ROUNDS, seed=1)
    report = []
    for name, a, b in zip(inproc.EXAMPLES, theirs, ours):
        ma, va, na = mean_and_variance(a)
        mb, vb, nb = mean_and_variance(b)
        assert na == nb == 6 * ROUNDS
        se = math.sqrt(va / na + vb / nb)
        report.append(f"{name}: seed {ma:+.3f} kothkit {mb:+.3f} (se {se:.3f})")
        assert abs(ma - mb) <= Z * se, "\n".join(report)
    # The ranking of the seed's own results table holds.
    order = sorted(range(4), key=lambda i: -inproc.score(ours[i]))
    assert [inproc.EXAMPLES[i] for i in order] == [
        "better_constant_player", "constant_player", "better_random_player", "random_player"]
