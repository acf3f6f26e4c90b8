"""flood_stdout: floods stdout without a newline, forever (verdict: invalid-reply).

A hostile test bot for kothkit's containment tests (gomoku_swap2); it misbehaves on purpose.
"""

import sys


for n, raw in enumerate(iter(sys.stdin.readline, "")):
    line = raw.strip()
    if line.startswith("EXIT"):
        break
    while True:
        sys.stdout.buffer.write(b"7" * (1 << 20))
        sys.stdout.buffer.flush()
