"""crash_start: dies at start with exit code 3, before reading anything (verdict: crash).

A hostile test bot for kothkit's containment tests (gomoku_swap2); it misbehaves on purpose.
"""

import sys


sys.stderr.write("crash_start: giving up before the first prompt\n")
sys.exit(3)
