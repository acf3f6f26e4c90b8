"""late_ok: answers START with OK after 1.5 s, over the 1 s first-reply limit (verdict: timeout)."""

import time

import sys

# Legal play shared by the test brains: the free cell nearest the centre (center4 opening assumed).
taken = set()


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
        time.sleep(1.5)
        say("OK")
    elif cmd[0] == "PLACE":
        taken.add((int(cmd[1]), int(cmd[2])))
    elif cmd[0] == "TURN":
        say("%d %d" % pick())
    elif cmd[0] == "END":
        break
