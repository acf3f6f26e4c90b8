"""Thinks for 3 s on its second move, far past connect4_hidden's 1 s limit: a timeout."""

import time


def sleepy(view, turn, state):
    if turn >= 2:
        time.sleep(3)
    return turn % 7, state
