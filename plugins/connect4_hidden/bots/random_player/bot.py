"""random_player, from the seed: any column at random, full or not (a full one is a pass)."""

import random


def random_player(view, turn, state):
    return random.randrange(0, 7), state
