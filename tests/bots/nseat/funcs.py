"""Function bots of tests/core/nseat_game.py's game: called with the round number, each returns
(its number, its state)."""

import sys
import time


def steady(r, state):
    return 1 + r % 2, state


def slow(r, state):
    print(f"got ROUND {r}", file=sys.stderr, flush=True)  # as soon as it is called (see steady/bot.py)
    time.sleep(0.4)
    return 1 + r % 2, state


def sleeper(r, state):
    if r == 2:
        time.sleep(60)
    return 1, state


def high(r, state):
    return 9, state


def middle(r, state):
    return 5 if r % 2 else 6, state


def low(r, state):
    return 1, state
