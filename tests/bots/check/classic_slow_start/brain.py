"""A classic12 brain that builds a big table before answering START: longer than the 1 s allowed."""

import sys
import time

time.sleep(3)  # stands for loading an opening book
board = set()
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "START":
        print("OK", flush=True)
    elif words[0] == "PLACE":
        board.add((int(words[1]), int(words[2])))
    elif words[0] == "TURN":
        r, c = next((r, c) for r in range(12) for c in range(12) if (r, c) not in board)
        board.add((r, c))
        print(r, c, flush=True)
    elif words[0] == "END":
        break
