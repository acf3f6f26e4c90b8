"""out_of_range: answers with cells off the 15x15 board (verdict: illegal-move).

A hostile test bot for kothkit's containment tests (gomoku_swap2); it misbehaves on purpose.
"""

import sys


def reply(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


for n, raw in enumerate(iter(sys.stdin.readline, "")):
    line = raw.strip()
    if line.startswith("EXIT"):
        break
    tag = line.partition(" ")[0]
    reply({"A": "(15,0) (0,0) (1,1)", "B": "W (15,15)", "C": "B"}.get(tag, "(-1,3)"))
