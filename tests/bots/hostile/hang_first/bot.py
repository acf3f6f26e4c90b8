"""hang_first: reads its first prompt and never answers (verdict: timeout).

A hostile test bot for kothkit's containment tests (gomoku_swap2); it misbehaves on purpose.
"""

import sys
import time


for n, raw in enumerate(iter(sys.stdin.readline, "")):
    line = raw.strip()
    if line.startswith("EXIT"):
        break
    time.sleep(3600)
