"""A minimal in-process driver for connect4_hidden: Match + FunctionBot, no referee, no clock.

Used by the tests (statistical comparison with the seed controller) and by
benchmarks/bench_connect4.py.  It does what the referee does for trusted
function bots, minus time limits and records, so it measures the game itself.
"""

from __future__ import annotations

from pathlib import Path

from kothkit.bots.functions import FunctionBot, FunctionBotError
from kothkit.game import Outcome, Setup
from kothkit_connect4_hidden.match import Connect4Match

BOTS = Path(__file__).resolve().parents[2] / "plugins" / "connect4_hidden" / "bots"
EXAMPLES = ("random_player", "constant_player", "better_random_player", "better_constant_player")


def bundled(name: str) -> FunctionBot:
    return FunctionBot(f"{BOTS / name / 'bot.py'}:{name}")


def play(bot0: FunctionBot, bot1: FunctionBot, seed: int) -> tuple[Outcome, Connect4Match]:
    """One game, seat 0 = bot0 (player 1); faults end it as the referee would.

    The bots' seeds are 2*seed and 2*seed+1: plain arithmetic, so that deriving
    them costs nothing here (the referee derives seeds by hashing); reseeding
    a random bot's generator still happens, as in the referee.
    """
    match = Connect4Match(Setup(players=(bot0.name, bot1.name), seed=seed))
    calls = (bot0.call, bot1.call)  # bound once, as the referee's loop does
    bot0.new_game(2 * seed)
    bot1.new_game(2 * seed + 1)
    nxt, put = match.next, match.play
    while True:
        step = nxt()
        if type(step) is Outcome:
            return step, match
        seat = step.seat
        try:
            reply = calls[seat](step.payload)
        except FunctionBotError as e:
            return match.forfeit(seat, e.verdict, e.message), match
        bad = put(seat, reply)
        if bad is not None:
            return match.forfeit(seat, bad.verdict, bad.reason), match


def round_robin(bots: list[FunctionBot], rounds: int, seed: int = 0) -> list[list[int]]:
    """The seed's schedule: every ordered pair once per round; counts[i] = [draws, losses, wins]."""
    counts = [[0, 0, 0] for _ in bots]
    n = seed << 32
    for _ in range(rounds):
        for i, a in enumerate(bots):
            for j, b in enumerate(bots):
                if i == j:
                    continue
                n += 1
                outcome, _m = play(a, b, n)
                if outcome.winner is None:
                    counts[i][0] += 1
                    counts[j][0] += 1
                else:
                    w, l = (i, j) if outcome.winner == 0 else (j, i)
                    counts[w][2] += 1
                    counts[l][1] += 1
    return counts


def score(c: list[int]) -> float:
    return (c[2] - c[1]) / sum(c)
