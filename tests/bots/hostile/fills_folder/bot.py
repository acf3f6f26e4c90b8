"""fills_folder: a stateful bot that leaves 24 MiB in its folder after its first game, then plays
legally (verdict: disk at the start of its second game, under --disk-mb 16).

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


os.makedirs("state", exist_ok=True)
for i in range(3):  # each file under the file size cap, all three over the folder's
    with open(f"state/junk{i}.bin", "wb") as f:
        f.write(os.urandom(8 << 20))

for raw in iter(sys.stdin.readline, ""):
    line = raw.strip()
    if line.startswith("EXIT"):
        break
    reply(legal(line))
