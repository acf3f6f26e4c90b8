"""one: the naive bot, a program that always bids 1 (unbeatable with two players, hopeless with more)."""

import sys

for line in sys.stdin:
    if line.startswith("BID "):
        print(1, flush=True)  # one line per prompt, flushed at once
    elif line.startswith("END"):
        break
