"""A classic12 brain that flushes every line but thinks 2.5 s over its 3rd move (its 4th reply, with OK), past the 2 s allowed.

Its late reply comes while it still runs, not when it exits: ``kothkit check`` must call it
slow, not stuck in an output buffer.
"""

import sys
import time

board = set()
turns = 0
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "START":
        board.clear()
        turns = 0
        print("OK", flush=True)
    elif words[0] == "PLACE":
        board.add((int(words[1]), int(words[2])))
    elif words[0] == "TURN":
        turns += 1
        if turns == 3:
            time.sleep(2.5)
        r, c = next((r, c) for r in range(12) for c in range(12) if (r, c) not in board)
        board.add((r, c))
        print(r, c, flush=True)
    elif words[0] == "END":
        break
