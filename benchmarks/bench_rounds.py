"""Benchmark: a Round (simultaneous moves) of 8 seats with one sleeper, against the same Round asked in turn.

Run by hand from the repository root::

    python benchmarks/bench_rounds.py [--games N]

The game is tests/core/nseat_game.py's (4 rounds; each seat sends a number), its bots
tests/bots/nseat/: seven that think 0.4 s every round (five programs, two
isolated function bots) and a sleeper (seat 3) that sleeps past its 1 s clock in round 2 and
loses on time.  Everything is measured in this one run:

- together: the wall time of that game, whose Rounds the referee sends all at once and collects
  together (each reply within its own clock);
- baseline, in turn: the same field as trusted function bots, which the referee calls one after
  another in its own process (the same referee, the same thinking, the same sleeper);
- the floor of asking in turn: the sum of the replies' own measured times in the together game,
  plus the sleeper's clock (what any referee that waits for one seat before asking the next pays).

The ratios together / in turn and together / floor are printed: well under 1 where the replies
are collected together (with 7 thinkers, near 1/7 plus the start-up of the bots).
tests/core/test_nseat_referee.py proves without a clock that a Round's prompts all go out
before any reply is read; this measures what that is worth.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "core"))

from nseat_game import INFO, function, program  # noqa: E402

from kothkit.playing.referee import play_game  # noqa: E402
from kothkit.store.records import GameTask  # noqa: E402


def together_field() -> list:
    players = [program(f"p{i}", "slow") for i in range(5)] + [function(f"f{i}", "slow") for i in range(2)]
    players.insert(3, program("sleeper", "sleep2"))
    return players


def in_turn_field() -> list:
    players = [function(f"f{i}", "slow") for i in range(7)]
    players.insert(3, function("sleeper", "sleeper"))
    return players


def play(players: list, trusted: bool, seed: int) -> tuple[float, float, tuple]:
    """(wall seconds, sum of the replies' measured seconds, seat verdicts) of one game."""
    task = GameTask(id=f"b{seed}", game=INFO.name, players=tuple(players), seed=seed, limits=INFO.limits,
                    trusted=trusted)
    t0 = time.perf_counter()
    rec = play_game(task, info=INFO)
    wall = time.perf_counter() - t0
    return wall, sum(m.ms for m in rec.moves) / 1000, rec.seat_verdicts


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=3, help="games of each kind (medians are printed)")
    args = ap.parse_args()
    expected = (None, None, None, "timeout", None, None, None, None)
    together, in_turn, floor = [], [], []
    for g in range(args.games):
        wall, replies, verdicts = play(together_field(), trusted=False, seed=g)
        assert verdicts == expected, verdicts
        together.append(wall)
        floor.append(replies + INFO.limits.move_time)  # the sleeper's clock, paid once in turn too
        wall, _, verdicts = play(in_turn_field(), trusted=True, seed=g)
        assert verdicts == expected, verdicts
        in_turn.append(wall)
    med = statistics.median
    print(f"8 seats, 4 rounds, 7 bots thinking 0.4 s a round, one sleeper timed out at "
          f"{INFO.limits.move_time:g} s; medians of {args.games} games")
    print(f"together (a Round sent at once, replies collected together)  {med(together):6.2f} s")
    print(f"baseline: in turn (trusted function bots, one after another) {med(in_turn):6.2f} s")
    print(f"floor of in turn: the replies' own times + the sleeper's clock {med(floor):6.2f} s")
    print(f"ratio together / in turn: {med(together) / med(in_turn):.2f}")
    print(f"ratio together / floor of in turn: {med(together) / med(floor):.2f}")


if __name__ == "__main__":
    sys.exit(main())
