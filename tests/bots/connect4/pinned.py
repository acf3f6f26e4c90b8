"""Tells, by its column, which cores it may run on: core % 6 when pinned to one core, else 6."""

import os


def pinned(view, turn, state):
    cores = os.sched_getaffinity(0)
    return (min(cores) % 6 if len(cores) == 1 else 6), state


def pinned_slowly(view, turn, state):
    """The same, 0.1 s a move: its tournaments last long enough to overlap another's."""
    import time

    time.sleep(0.1)
    return pinned(view, turn, state)
