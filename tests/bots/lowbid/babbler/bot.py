"""babbler: answers the second round with words instead of a bid (an invalid reply)."""

import sys

for line in sys.stdin:
    if line.startswith("BID "):
        print("seven" if line.split()[1] == "2" else 7, flush=True)
