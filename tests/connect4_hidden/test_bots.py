"""The bundled bots: the seed's four examples behave exactly like the seed's, the deducer deduces and wins."""

from __future__ import annotations

import random

import c4_inproc as inproc
import c4_seed_controller as seed
import pytest

from kothkit.bots.functions import FunctionBot
from kothkit.game import Prompt, Setup
from kothkit_connect4_hidden.match import Connect4Match
from kothkit_connect4_hidden.rules import view_of

OPENINGS = inproc.BOTS.parents[2] / "tests" / "bots" / "connect4" / "openings.py"


def random_positions(n, rng):
    """(view, turn) pairs from random games, seen by the player to move; many with full columns."""
    out = []
    while len(out) < n:
        m = Connect4Match(Setup(players=("a", "b"), seed=0))
        for _ in range(42):
            step = m.next()
            if not isinstance(step, Prompt):
                break
            out.append(step.payload)
            m.play(step.seat, rng.choice((0, 0, 1, 2, 3, 4, 5, 6)))
    return out[:n]


@pytest.mark.parametrize("name", inproc.EXAMPLES)
def test_example_bots_reply_exactly_as_the_seeds(name):
    ours = inproc.bundled(name)
    theirs = getattr(seed, name)
    rng = random.Random(11)
    positions = random_positions(500, rng)
    saved = random.getstate()
    try:
        for i, (view, turn) in enumerate(positions):
            # Same seed for the seed's global generator and for our bot's own one.
            random.seed(i)
            expected, state = theirs([row[:] for row in view], turn, "state")
            ours.new_game(i)
            ours.state = "state"
            assert ours.call(([row[:] for row in view], turn)) == expected
            assert ours.state == state == "state"
    finally:
        random.setstate(saved)


def deducer_reply(columns):
    m = Connect4Match(Setup(players=("a", "b"), seed=0))
    for c in columns:
        m.play(m.next().seat, c)
    step = m.next()
    return inproc.bundled("deducer").call(step.payload), m


def test_deducer_blocks_a_threat_it_cannot_see():
    # X: 0, 1, 2 along the taped bottom row, each under an O; then X somewhere out of sight.
    reply, m = deducer_reply([0, 0, 1, 1, 2, 2, 6])
    view = m.next().payload[0]
    assert view[0] == [0, 0, 0, 0, 0, 0, 0]  # O sees nothing of X's three
    assert reply == 3


def test_deducer_takes_a_win():
    # O (the deducer) has rows 1-3 of column 4; X cannot stop it from its own moves either.
    reply, m = deducer_reply([4, 4, 0, 4, 0, 4, 6])
    assert m.next().seat == 1
    assert reply == 4


def test_deducer_knows_where_its_stone_lands():
    # X stacks rows 2, 3, 4 of column 5 on two O stones: O sees X at (3, 5) only.  (2, 5) must be X
    # (below a stone); (4, 5) may be, by the count of X's moves.  Column 5 blocks either way.
    reply, m = deducer_reply([0, 5, 6, 5, 5, 1, 5, 1, 5])
    view = m.next().payload[0]
    assert [view[r][5] for r in range(6)] == [2, 2, 0, 1, 0, 0]
    assert m.board[4][5] == 1 and m.board[2][5] == 1
    assert reply == 5


@pytest.mark.parametrize("name", inproc.EXAMPLES)
def test_deducer_beats_every_example_bot(name):
    counts = inproc.round_robin([inproc.bundled("deducer"), inproc.bundled(name)], rounds=50, seed=3)
    draws, losses, wins = counts[0]
    assert wins >= 0.95 * (draws + losses + wins), counts


def test_deduction_itself_wins_games():
    """Against its own twin told that no stone is hidden, the deducer scores clearly better."""
    d = FunctionBot(f"{OPENINGS}:deducer_opening")
    naive = FunctionBot(f"{OPENINGS}:naive_opening")
    counts = inproc.round_robin([d, naive], rounds=300, seed=5)
    assert inproc.score(counts[0]) > 0.1, counts


def test_deducer_keeps_no_state_and_is_deterministic():
    bot = inproc.bundled("deducer")
    for view, turn in random_positions(200, random.Random(4)):
        a = bot.call((view, turn))
        assert bot.state is None
        assert 0 <= a < 7 and bot.call((view_of(view, 1 if turn % 2 == 0 else 2), turn)) == a
