"""slow15: spends 1.5 s of busy CPU on every move, within the 2 s move limit.

With the bots pinned to one core per game and ``--jobs`` no more than the
cores, the 1.5 s of CPU take about 1.5 s of wall time and it never loses on
time.  It fills its own home row from the left (row 0 as black, row 11 as
white), so a game between two of them ends after nine moves: black wins.
"""

import sys
import time

SPEND = 1.5


def spin(seconds):
    # CPU time of this process: a busy loop that a shared core would stretch in wall time.
    end = time.process_time() + seconds
    x = 0
    while time.process_time() < end:
        x += 1
    return x


taken = set()
row = 0
for line in sys.stdin:
    cmd = line.split()
    if cmd[0] == "START":
        taken = {(5, 5), (6, 6), (5, 6), (6, 5)}
        row = 0 if cmd[1] == "1" else 11
        print("OK", flush=True)
    elif cmd[0] == "PLACE":
        taken.add((int(cmd[1]), int(cmd[2])))
    elif cmd[0] == "TURN":
        spin(SPEND)
        free = [(row, c) for c in range(12) if (row, c) not in taken]
        free = free or [(r, c) for r in range(12) for c in range(12) if (r, c) not in taken]
        cell = free[0]
        taken.add(cell)
        print("%d %d" % cell, flush=True)
    elif cmd[0] == "END":
        break
