"""Prints on every call, to stdout and to stderr, as the seed's bots may: all of it must land in
its log of that very game (isolated or trusted), and none of it on the judge's own output."""

import sys

print("printer: loaded")  # once a process: in the log of the first game it plays there


def printer(view, turn, state):
    calls = (state or 0) + 1
    print(f"printer: call {calls} of this game, turn {turn}")
    print(f"printer: to stderr, turn {turn}", file=sys.stderr)
    sys.stdout.write(f"[no newline {turn}]")
    return turn % 7, calls


def flood(view, turn, state):
    """Prints 20 KB a call: its log of a game keeps 32 KB (stderr_cap), and says how much more there was."""
    print("flood " + "z" * (20 * 1024 - 6))
    return turn % 7, state
