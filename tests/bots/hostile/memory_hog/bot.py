"""memory_hog: allocates 1 GiB at its first prompt (verdict: memory under --memory-mb).

A hostile test bot for kothkit's containment tests (gomoku_swap2); it misbehaves on purpose.
"""

import sys


for n, raw in enumerate(iter(sys.stdin.readline, "")):
    line = raw.strip()
    if line.startswith("EXIT"):
        break
    hog = b"\x01" * (1 << 30)  # really written, so really resident
    sys.stdout.write("(7,7) (8,8) (9,9)\n")
    sys.stdout.flush()
