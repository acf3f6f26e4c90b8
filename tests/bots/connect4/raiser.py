"""Plays column 3 twice, then raises: the referee must rule a crash and survive."""


def raiser(view, turn, state):
    if turn >= 4:
        raise ValueError("raiser gives up on turn %d" % turn)
    return 3, state
