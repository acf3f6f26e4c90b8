"""Bots that try to end the process they run in."""

import os
import sys


def exiter(view, turn, state):
    sys.exit(3)  # SystemExit: caught, a crash of this bot only


def hard_exit(view, turn, state):
    os._exit(3)  # cannot be caught: only an isolated worker may host this one


def late_exit(view, turn, state):
    if turn >= 4:
        os._exit(3)  # mid-game: the judge finds its worker's output closed while waiting for a reply
    return 3, state
