"""affinity_widener: asks for every core of the machine (sched_setaffinity), then writes the
cores it may run on (/proc/self/status' Cpus_allowed_list) to its stderr, and plays legally.

A hostile test bot for kothkit's containment tests (gomoku_swap2); it misbehaves on purpose.
"""

import os
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


def play():
    for raw in iter(sys.stdin.readline, ""):
        line = raw.strip()
        if line.startswith("EXIT"):
            break
        sys.stdout.write(legal(line) + "\n")
        sys.stdout.flush()


try:
    os.sched_setaffinity(0, set(range(os.cpu_count() or 1)))
    sys.stderr.write("widen: granted\n")
except OSError as e:
    sys.stderr.write(f"widen: refused ({e.strerror})\n")
with open("/proc/self/status") as f:
    allowed = [line.split(":", 1)[1].strip() for line in f if line.startswith("Cpus_allowed_list:")]
sys.stderr.write(f"cpus: {allowed[0] if allowed else '?'}\n")
sys.stderr.flush()
play()
