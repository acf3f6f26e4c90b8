"""quitter: bids 5 in the first two rounds, then exits (a crash in round 3)."""

import sys

for line in sys.stdin:
    if line.startswith("BID "):
        if int(line.split()[1]) >= 3:
            sys.exit(3)
        print(5, flush=True)
