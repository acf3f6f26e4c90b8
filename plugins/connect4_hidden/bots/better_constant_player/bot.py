"""better_constant_player, from the seed: the leftmost column that is not full."""


def better_constant_player(view, turn, state):
    for j in range(7):
        if view[-1][j] == 0:
            return j, state
