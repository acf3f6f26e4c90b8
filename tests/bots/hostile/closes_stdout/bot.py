"""closes_stdout: closes its stdout at the first prompt and sleeps (verdict: crash, closed its output).

A hostile test bot for kothkit's containment tests (gomoku_swap2); it misbehaves on purpose.
"""

import os
import sys
import time


for n, raw in enumerate(iter(sys.stdin.readline, "")):
    line = raw.strip()
    if line.startswith("EXIT"):
        break
    os.close(1)
    time.sleep(3600)
