"""steady: a well-behaved test brain (plays legal moves, never faults): the opponent of the misbehaving ones.

At END it writes to stderr the last PLACE it got and the END line, so a test
can check from the game's log that the deciding move reached the loser.
"""

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


last_place = None
for line in sys.stdin:
    cmd = line.split()
    if cmd[0] == "START":
        reset()
        say("OK")
    elif cmd[0] == "PLACE":
        taken.add((int(cmd[1]), int(cmd[2])))
        last_place = " ".join(cmd[1:])
    elif cmd[0] == "TURN":
        say("%d %d" % pick())
    elif cmd[0] == "END":
        sys.stderr.write(f"steady: last PLACE {last_place}; END {cmd[1]}\n")
        break
