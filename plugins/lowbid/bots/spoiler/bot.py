"""spoiler: a Python program for lowbid that bids 1 whenever another bot took the last round with a 1,
to take the point from it (for the others: it wins nothing that round itself), and otherwise a low
number nobody bid last round, chosen with its seed.

Usage: python3 bot.py SEED.  One judge line in, one line out:
BID ROUND ROUNDS MAX_BID SEAT B0 ... Bn-1  ->  a bid; END ...  ->  the game is over.
"""

import random
import sys

rng = random.Random(sys.argv[1] if len(sys.argv) > 1 else 0)
for line in sys.stdin:
    words = line.split()
    if not words or words[0] == "END":
        break
    if words[0] != "BID":
        continue
    max_bid, seat = int(words[3]), int(words[4])
    last = [int(w) for w in words[5:]]
    others = [b for s, b in enumerate(last) if s != seat and b]
    if others.count(1) == 1:
        bid = 1  # someone won with a lone 1: spoil it
    else:
        free = [b for b in range(2, max_bid + 1) if b not in others] or [1]
        bid = rng.choice(free[:2])
    print(bid, flush=True)
