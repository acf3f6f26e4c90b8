"""better_random_player, from the seed: a random column that is not full (the top row is never taped)."""

import random


def better_random_player(view, turn, state):
    while True:
        j = random.randrange(0, 7)
        if view[-1][j] == 0:
            return j, state
