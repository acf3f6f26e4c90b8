"""The bundled Swap2 bots, run as real processes over real pipes against the pure Match."""

import itertools
import subprocess

import pytest

from kothkit_gomoku_swap2.codec import decode, format_board, tokenize
from kothkit_gomoku_swap2.rules import Stone

BUNDLED = ["threat", "scout", "greedy"]
NORMAL_END = ("five in a row", "board full")


def ask(spec, *lines, seed=7):
    """Send judge lines to a fresh bot process; its reply lines."""
    r = subprocess.run([*spec.command, "judge", str(seed)], cwd=spec.path, input="".join(l + "\n" for l in lines),
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()


def board(black, white):
    stones = [Stone(x, y, "B") for x, y in black] + [Stone(x, y, "W") for x, y in white]
    return format_board(stones)


@pytest.mark.parametrize("seed", range(4))
def test_threat_plays_itself_legally(bot, pipes, seed):
    t = bot("threat")
    p = pipes([t, t], seed, names=("one", "two"))
    assert p.rejected is None and p.outcome.reason in NORMAL_END
    assert p.returncodes == (0, 0)  # both left on EXIT by themselves


def test_same_seed_same_game(bot, pipes):
    t, s = bot("threat"), bot("scout")
    first = pipes([s, t], 11)
    again = pipes([s, t], 11)
    assert first.replies == again.replies and first.outcome == again.outcome


@pytest.mark.parametrize("a, b", list(itertools.permutations(BUNDLED, 2)))
def test_bundled_bots_play_each_other_legally(bot, pipes, a, b):
    for seed in (1, 2):
        p = pipes([bot(a), bot(b)], seed)
        assert p.rejected is None, (p.rejected, p.replies[-3:])
        assert p.outcome.reason in NORMAL_END
        assert p.returncodes == (0, 0)
        # the EXIT line reached both, naming the winner
        finals = [decode(line) for _, line in p.sent[-2:]]
        assert all(f.winner == (None if p.outcome.winner is None else p.match.setup.players[p.outcome.winner]) for f in finals)


def test_scout_takes_every_opening_branch(bot, pipes):
    # scout answers B at random (seeded): over a few games each of the three answers appears,
    # and the opener is asked C after the two-stone answer.
    t, s = bot("threat"), bot("scout")
    seen = set()
    for seed in range(12):
        p = pipes([t, s], seed)
        assert p.rejected is None
        answer = tokenize(p.replies[1][1])
        seen.add("B" if answer == ["B"] else "W" if answer[0] == "W" else "two")
        if seen == {"B", "W", "two"}:
            break
        tags = [line.split(" ")[0] for seat, line in p.sent]
        assert ("C" in tags) == (answer[0] not in ("B", "W"))
    assert seen == {"B", "W", "two"}


def test_threat_beats_the_simple_bots(bot, pipes):
    t = bot("threat")
    wins = games = 0
    for other in ("scout", "greedy"):
        o = bot(other)
        for seed in range(3):
            for seats in ((t, o), (o, t)):
                p = pipes(list(seats), seed, names=("x", "y"))
                games += 1
                wins += p.outcome.winner is not None and seats[p.outcome.winner] is t
    assert wins >= games - 1


# -- threat's tactics, one prompt at a time --------------------------------------------
def cell(reply):
    (c,) = tokenize(reply)
    return c


def test_threat_takes_a_five(bot):
    # round 2: black to move; black has four in a row with one end open.
    line = "2 " + board([(3, 3), (4, 3), (5, 3), (6, 3), (10, 10)], [(2, 3), (0, 0), (1, 1)])
    assert ask(bot("threat"), line) == ["(7,3)"]


def test_threat_blocks_a_four(bot):
    line = "1 " + board([(3, 3), (4, 4), (5, 5), (6, 6)], [(2, 2), (14, 0)])
    assert ask(bot("threat"), line) == ["(7,7)"]


def test_threat_prefers_its_own_five_to_blocking(bot):
    # round 3: white to move; both sides have an open four.
    line = "3 " + board([(3, 3), (4, 4), (5, 5), (6, 6), (0, 14)], [(9, 1), (9, 2), (9, 3), (9, 4), (14, 14)])
    assert cell(ask(bot("threat"), line)[0]) in {(9, 0), (9, 5)}


def test_threat_blocks_an_open_three(bot):
    line = "1 " + board([(6, 7), (7, 7), (8, 7)], [(0, 0)])
    assert cell(ask(bot("threat"), line)[0]) in {(5, 7), (9, 7), (4, 7), (10, 7)}


def test_threat_makes_an_open_four_from_an_open_three(bot):
    line = "4 " + board([(6, 7), (7, 7), (8, 7), (0, 14)], [(3, 3), (12, 12), (0, 0)])
    assert cell(ask(bot("threat"), line)[0]) in {(5, 7), (9, 7)}


def test_threat_answers_every_opening_prompt(bot):
    t = bot("threat")
    a, b, c = ask(t, "A []", "B " + board([(7, 7), (9, 9)], [(8, 8)]),
                  "C " + board([(7, 7), (9, 9), (6, 6)], [(8, 8), (10, 10)]))
    stones = tokenize(a)
    assert len(stones) == 3 and len(set(stones)) == 3 and all(0 <= v < 15 for s in stones for v in s)
    assert tokenize(b) == ["B"] or tokenize(b)[0] == "W"
    assert c in ("B", "W")
