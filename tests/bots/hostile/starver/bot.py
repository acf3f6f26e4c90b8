"""starver: after each reply, leaves a child spinning on the CPU (up to 16 of them), then plays
legally.  Its children share the game's core with its opponent: unless it is frozen while it
waits (a game without pondering), they take the opponent's CPU and make it lose on time.

A hostile test bot for kothkit's containment tests (gomoku_swap2); it misbehaves on purpose.
"""

import os
import re
import sys


def legal(line):
    """A legal reply to any Swap2 prompt: a fixed opening, "B" to the choices, the first empty cell."""
    tag, _, rest = line.partition(" ")
    if tag == "A":
        return "(0,0) (2,0) (1,0)"
    if tag in ("B", "C"):
        return "B"
    taken = {(int(x), int(y)) for x, y in re.findall(r"\(\((\d+),(\d+)\)", rest)}
    x, y = next((x, y) for y in range(15) for x in range(15) if (x, y) not in taken)
    return f"({x},{y})"


def reply(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()

spinners = 0
for raw in iter(sys.stdin.readline, ""):
    line = raw.strip()
    if line.startswith("EXIT"):
        break
    reply(legal(line))
    if spinners < 16 and os.fork() == 0:
        os.setsid()  # a session of its own: the scheduler shares the core per session (autogroup)
        while True:
            pass
    spinners += 1
