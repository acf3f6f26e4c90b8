"""tardy: writes a DEBUG line and a stderr line at every TURN, and answers its third TURN 0.6 s
late, past a 0.3 s move limit but within the 0.5 s grace (verdict: timeout; the record keeps the
late reply with its time)."""

import sys
import time

taken = set()
turns = 0


def reset():
    taken.clear()
    taken.update({(5, 5), (6, 6), (5, 6), (6, 5)})


def pick():
    free = [(r, c) for r in range(12) for c in range(12) if (r, c) not in taken]
    cell = min(free, key=lambda rc: (abs(2 * rc[0] - 11) + abs(2 * rc[1] - 11), rc))
    taken.add(cell)
    return cell


def say(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    cmd = line.split()
    if cmd[0] == "START":
        reset()
        turns = 0
        say("OK")
    elif cmd[0] == "PLACE":
        taken.add((int(cmd[1]), int(cmd[2])))
    elif cmd[0] == "TURN":
        turns += 1
        cell = pick()
        say(f"DEBUG turn {turns}: thinking about {cell[0]} {cell[1]}")
        sys.stderr.write(f"tardy stderr at turn {turns}\n")
        sys.stderr.flush()
        if turns == 3:
            time.sleep(0.6)
        say("%d %d" % cell)
    elif cmd[0] == "END":
        say(f"DEBUG got {line.strip()}")
        break
