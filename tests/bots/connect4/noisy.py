"""Prints to stdout and reads stdin, as a careless bot does; it must not disturb the judge's protocol."""

import sys

print("noisy: loaded")


def noisy(view, turn, state):
    print("noisy: thinking about turn", turn)
    sys.stdout.write('{"ok": 6}\n')
    sys.stdout.flush()
    rest = sys.stdin.readline()  # must not swallow the judge's next request
    state = (state or 0) + 1
    return turn % 7, state
