"""Connect-4 bots of known relative strength, for the ratings tests.

A bot of strength q is awake in a game with probability q: awake, it plays a random column that is
not full; asleep, its first reply is column 7, off the board, and it loses at once.  Two awake bots
play the same random game from either seat, so over a game pair (each opening once) the expected
score of strength qa against qb is exactly 1/2 + (qa - qb)/2 per game, whatever the game itself
favours (worked out in tests/connect4_hidden/test_ratings.py).
"""

import random


def _bot(q):
    def play(view, turn, state):
        if state is None:
            state = random.random() < q  # awake in this game?
        if not state:
            return 7, state
        while True:
            j = random.randrange(0, 7)
            if view[-1][j] == 0:
                return j, state

    return play


q100 = _bot(1.0)
q75 = _bot(0.75)
q50 = _bot(0.5)
q25 = _bot(0.25)


def q75_slow(view, turn, state):
    """q75 that takes 10 ms over its first move, so that a test can kill a match half-way."""
    if state is None:
        import time

        time.sleep(0.01)
    return q75(view, turn, state)
