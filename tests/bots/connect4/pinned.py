"""Tells, by its column, which cores it may run on: core % 6 when pinned to one core, else 6."""

import os


def pinned(view, turn, state):
    cores = os.sched_getaffinity(0)
    return (min(cores) % 6 if len(cores) == 1 else 6), state
