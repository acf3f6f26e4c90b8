"""loud_stderr: asks for its stderr to be shown live (stderr = true), then writes 16 MiB of it,
terminal escape sequences included, before its first reply; then plays legally (no verdict: what
the judge prints is capped and escaped, as its log is).

A hostile test bot for kothkit's containment tests (gomoku_swap2); it misbehaves on purpose.
"""

import re
import sys


def legal(line):
    """A legal reply to any Swap2 prompt: a fixed opening, "B" to the choices, the first empty cell."""
    tag, _, rest = line.partition(" ")
    if tag == "A":
        return "(0,0) (2,0) (1,0)"
    if tag in ("B", "C"):
        return "B"
    taken = {(int(x), int(y)) for x, y in re.findall(r"\(\((\d+),(\d+)\)", rest)}
    x, y = next((x, y) for y in range(15) for x in range(15) if (x, y) not in taken)
    return f"({x},{y})"


def reply(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


line = b"\x1b[2J\x1b[31mLOUD\x1b[0m " + b"noise " * 100 + b"\n"
chunk = line * (65536 // len(line))
for _ in range(256):
    sys.stderr.buffer.write(chunk)
sys.stderr.buffer.flush()


for raw in iter(sys.stdin.readline, ""):
    line = raw.strip()
    if line.startswith("EXIT"):
        break
    reply(legal(line))
