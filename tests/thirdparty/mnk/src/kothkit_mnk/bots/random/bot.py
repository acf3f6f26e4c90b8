"""random: any empty cell, drawn from a generator seeded with the seed the judge passes as argv[1]."""

import random
import sys

rng = random.Random(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
for line in sys.stdin:
    words = line.split()
    if not words or words[0] == "END":
        break
    if words[0] == "TURN":
        rows = words[3].split("/")
        empty = [(r, c) for r, row in enumerate(rows) for c, cell in enumerate(row) if cell == "."]
        r, c = rng.choice(empty)
        print(r, c, flush=True)
