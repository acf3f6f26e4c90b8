"""fills_tmp: at its first prompt, writes to /tmp until the disk is full, and dies of it
(verdict: disk, under --disk-mb 16: its /tmp is a tmpfs of that size).

A hostile test bot for kothkit's containment tests (gomoku_swap2); it misbehaves on purpose.
"""

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


for n, raw in enumerate(iter(sys.stdin.readline, "")):
    line = raw.strip()
    if line.startswith("EXIT"):
        break
    chunk = b"x" * (1 << 20)
    for i in range(1 << 20):  # one file after another, each under the file size cap
        with open(f"/tmp/fill{i}", "wb") as f:
            for _ in range(4):
                f.write(chunk)
    reply(legal(line))
