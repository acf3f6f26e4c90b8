"""garbage: answers every prompt with words (verdict: invalid-reply).

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
    reply("hello judge, how are you")
