"""A Swap2 bot with one protocol mistake: it answers the C prompt (choose B or W) with a cell.

Everything else is right, so only a check that reaches the C branch (the opponent
answering the opening with two stones) finds it.
"""

import re
import sys

taken = set()
for line in sys.stdin:
    tag, _, board = line.strip().partition(" ")
    if tag == "EXIT":
        break
    taken = {(int(x), int(y)) for x, y in re.findall(r"\(\((\d+),(\d+)\)", board)}
    free = [(x, y) for d in range(8) for x in range(7 - d, 8 + d) for y in range(7 - d, 8 + d) if (x, y) not in taken]
    if tag == "A":
        reply = " ".join(f"({x},{y})" for x, y in free[:3])
    elif tag == "B":
        reply = "B"
    elif tag == "C":
        reply = "(%d,%d)" % free[0]  # the mistake: C wants 'B' or 'W'
    else:
        reply = "(%d,%d)" % free[0]
    print(reply, flush=True)
