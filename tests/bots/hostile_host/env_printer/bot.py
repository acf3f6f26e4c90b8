"""env_printer: writes its whole environment (os.environ and /proc/self/environ) to its stderr,
kept in the game's log, then plays legally.  The judge's environment must not be in it.

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


def play():
    for raw in iter(sys.stdin.readline, ""):
        line = raw.strip()
        if line.startswith("EXIT"):
            break
        sys.stdout.write(legal(line) + "\n")
        sys.stdout.flush()


for k, v in sorted(os.environ.items()):
    sys.stderr.write(f"env {k}={v}\n")
with open("/proc/self/environ", "rb") as f:
    sys.stderr.write(f"environ {f.read()!r}\n")
sys.stderr.flush()
play()
