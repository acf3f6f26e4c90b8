"""constant_player, from the seed: always column 0 (a pass once it is full)."""


def constant_player(view, turn, state):
    return 0, state
