"""host_viewer: reads what the machine shows of its users and of the bot's init (/etc/passwd,
/etc/group, /proc/1/cmdline, /proc/1/environ, /proc/1/cgroup, its own /proc/self/cgroup) and
writes it to its stderr, then plays legally.

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


def play():
    for raw in iter(sys.stdin.readline, ""):
        line = raw.strip()
        if line.startswith("EXIT"):
            break
        sys.stdout.write(legal(line) + "\n")
        sys.stdout.flush()


for path in ("/etc/passwd", "/etc/group", "/proc/1/cmdline", "/proc/1/environ", "/proc/1/cgroup",
             "/proc/self/cgroup"):
    try:
        with open(path, "rb") as f:
            text = f.read(1 << 16).replace(b"\0", b" ").decode("utf-8", "replace")
    except OSError as e:
        text = f"unreadable ({e.strerror})"
    sys.stderr.write(f"== {path}\n{text}\n")
sys.stderr.flush()
play()
