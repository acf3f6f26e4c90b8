"""plants_setuid: at run time, plants what plant.py tries in its own (writable) folder, reports it
on stderr, and plays legally (gomoku_swap2).

A hostile test bot for kothkit's containment tests; it misbehaves on purpose.
"""

import re
import sys

from plant import plant

sys.stderr.write("".join(f"{line}\n" for line in plant()))
sys.stderr.flush()
for raw in iter(sys.stdin.readline, ""):
    tag, _, rest = raw.strip().partition(" ")
    if tag == "EXIT":
        break
    if tag == "A":
        out = "(0,0) (2,0) (1,0)"
    elif tag in ("B", "C"):
        out = "B"
    else:
        taken = {(int(x), int(y)) for x, y in re.findall(r"\(\((\d+),(\d+)\)", rest)}
        out = "(%d,%d)" % next((x, y) for y in range(15) for x in range(15) if (x, y) not in taken)
    sys.stdout.write(out + "\n")
    sys.stdout.flush()
