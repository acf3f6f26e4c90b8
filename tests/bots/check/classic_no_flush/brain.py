"""A classic12 brain that never flushes its output, like a C program using printf without fflush.

Its replies sit in an 8 KiB buffer, so the judge never sees them.  (The buffer is
made explicit so that PYTHONUNBUFFERED or ``python -u`` cannot hide the mistake.)
"""

import os
import sys

out = os.fdopen(os.dup(1), "w", buffering=8192)
board = set()
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "START":
        out.write("OK\n")  # the mistake: no out.flush()
    elif words[0] == "PLACE":
        board.add((int(words[1]), int(words[2])))
    elif words[0] == "TURN":
        r, c = next((r, c) for r in range(12) for c in range(12) if (r, c) not in board)
        board.add((r, c))
        out.write(f"{r} {c}\n")
    elif words[0] == "END":
        break
