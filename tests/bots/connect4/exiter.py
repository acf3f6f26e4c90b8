"""Bots that try to end the process they run in."""

import os
import sys


def exiter(view, turn, state):
    sys.exit(3)  # SystemExit: caught, a crash of this bot only


def hard_exit(view, turn, state):
    os._exit(3)  # cannot be caught: only an isolated worker may host this one
