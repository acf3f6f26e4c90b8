"""net_client: connects to a listener on the host's loopback (127.0.0.1, the port in its
environment's TARGET_PORT), and listens on 127.0.0.1 itself; writes what happened to its stderr,
then plays legally.

A hostile test bot for kothkit's containment tests (gomoku_swap2); it misbehaves on purpose.
"""

import os
import re
import socket
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


port = int(os.environ.get("TARGET_PORT", "1"))
try:
    with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
        s.sendall(b"hello from a bot\n")
    sys.stderr.write("connect: reached the host\n")
except OSError as e:
    sys.stderr.write(f"connect: failed ({e.strerror or e})\n")
try:
    with socket.socket() as own:
        own.bind(("127.0.0.1", 0))
        own.listen()
        with socket.create_connection(own.getsockname(), timeout=2):
            pass
    sys.stderr.write("loopback: works\n")
except OSError as e:
    sys.stderr.write(f"loopback: failed ({e.strerror or e})\n")
sys.stderr.flush()
play()
