"""A classic12 brain that forgets the newline after OK: the judge waits for the end of the line."""

import sys

for line in sys.stdin:
    words = line.split()
    if words and words[0] == "START":
        sys.stdout.write("OK")  # the mistake: "OK\n"
        sys.stdout.flush()
    elif words and words[0] == "END":
        break
