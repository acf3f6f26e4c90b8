"""bad_utf8: answers with bytes that are not UTF-8 (verdict: invalid-reply).

A hostile test bot for kothkit's containment tests (gomoku_swap2); it misbehaves on purpose.
"""

import sys


for n, raw in enumerate(iter(sys.stdin.readline, "")):
    line = raw.strip()
    if line.startswith("EXIT"):
        break
    sys.stdout.buffer.write(b"(7,7) \xff\xfe (8,8)\n")
    sys.stdout.buffer.flush()
