"""A bot of tests/core/nseat_game.py's game (``ROUND r`` in, a number out), misbehaving as its first
argument says: steady (always 1), crash3 (exits at round 3), sleep2 (sleeps past any clock at
round 2), chatter2 (writes a second line after its reply at round 2), bad2 (replies "x" at round
2), slow (writes "got ROUND r" to stderr as soon as it has the prompt, then thinks 0.4 s each
round, within its clock)."""

import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "steady"
for raw in iter(sys.stdin.readline, ""):
    words = raw.split()
    if not words or words[0] != "ROUND":
        continue
    r = int(words[1])
    if mode == "crash3" and r == 3:
        sys.exit(3)
    if mode == "sleep2" and r == 2:
        time.sleep(60)
    if mode == "slow":
        sys.stderr.write(f"got ROUND {r}\n")
        sys.stderr.flush()
        time.sleep(0.4)
    sys.stdout.write("x\n" if mode == "bad2" and r == 2 else f"{1 + r % 2}\n")
    if mode == "chatter2" and r == 2:
        sys.stdout.write("and another thing\n")
    sys.stdout.flush()
