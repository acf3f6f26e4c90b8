#!/usr/bin/env python3
"""flooder: answers its first game-phase prompt with one endless line that never ends in a newline
(verdict: invalid-reply: the line is longer than the judge's cap).

A test bot for kothkit's gomoku_swap2 fault handling; it misbehaves on purpose.
"""

import os
import re
import sys


def misbehave(line):
    chunk = b"7" * 65536
    os.write(1, b"(")
    while True:
        os.write(1, chunk)


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


for raw in iter(sys.stdin.readline, ""):
    line = raw.strip()
    if line.startswith("EXIT"):
        break
    if line.split(" ")[0].isdigit():
        misbehave(line)
    else:
        reply(legal(line))
