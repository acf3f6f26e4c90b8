"""memory: at its first TURN fills 600 MB, 50 MB at a time, then frees it all and answers (verdict: memory).

The pages are written (not just reserved), so the memory really is in use:
the cap has to stop real memory, not address space.  And it is all freed
before the answer: a judge that only looked at memory after the move would
see nothing; the cap must hold at every moment.
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

hoard = []
hungry = True
for line in sys.stdin:
    cmd = line.split()
    if cmd[0] == "START":
        reset()
        say("OK")
    elif cmd[0] == "PLACE":
        taken.add((int(cmd[1]), int(cmd[2])))
    elif cmd[0] == "TURN":
        while hungry and len(hoard) < 12:
            hoard.append(b"x" * (50 << 20))
        hoard.clear()
        hungry = False
        say("%d %d" % pick())
    elif cmd[0] == "END":
        break
