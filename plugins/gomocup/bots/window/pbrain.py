"""window: a Piskvork engine in Python, kothkit gomocup's second bundled example.

It reads the manager's commands one a line and answers each as the protocol asks: OK to START,
its name to ABOUT, nothing to INFO, a move "x,y" to BEGIN, TURN and BOARD ... DONE, three stones
(or SWAP, or one stone) to SWAP2BOARD ... DONE.  Its move: the empty cell that sees the most of its
own stones, then of the opponent's, in the 5-cell windows through it.
"""

import sys

DIRS = ((1, 0), (0, 1), (1, 1), (1, -1))
size = 15
board = {}  # (x, y) -> 1 mine, 2 theirs


def say(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def score(x, y):
    best = 0
    for who, weight in ((1, 10), (2, 9)):
        for dx, dy in DIRS:
            for start in range(-4, 1):
                cells = [(x + (start + k) * dx, y + (start + k) * dy) for k in range(5)]
                if not all(0 <= cx < size and 0 <= cy < size for cx, cy in cells):
                    continue
                stones = [board.get(c, 0) for c in cells]
                if (3 - who) in stones:
                    continue
                count = stones.count(who)
                value = 10000 if count == 4 else count * count * weight
                best = max(best, value + (1 if who == 1 else 0))
    return best


def move():
    empty = [(x, y) for y in range(size) for x in range(size) if (x, y) not in board]
    if len(empty) == size * size:
        x = y = size // 2
    else:
        x, y = max(empty, key=lambda c: (score(*c), -abs(c[0] - size // 2) - abs(c[1] - size // 2), -c[1], -c[0]))
    board[(x, y)] = 1
    say(f"{x},{y}")


def stones():
    found = []
    for line in sys.stdin:
        line = line.strip()
        if line.upper() == "DONE":
            break
        parts = line.split(",")
        if len(parts) >= 2:
            found.append((int(parts[0]), int(parts[1]), int(parts[2]) if len(parts) > 2 else 0))
    return found


for raw in sys.stdin:
    words = raw.strip().split()
    if not words:
        continue
    cmd = words[0].upper()
    if cmd == "START":
        size = int(words[1])
        board.clear()
        say("OK")
    elif cmd == "ABOUT":
        say('name="window", version="1.0", author="kothkit", country="CZ"')
    elif cmd == "BEGIN":
        move()
    elif cmd == "TURN":
        x, y = map(int, words[1].split(","))
        board[(x, y)] = 2
        move()
    elif cmd == "BOARD":
        board.clear()
        for x, y, field in stones():
            board[(x, y)] = 2 if field == 2 else 1
        move()
    elif cmd == "SWAP2BOARD":
        given = stones()
        c = size // 2
        if not given:
            say(f"{c},{c} {c + 1},{c} {c - 1},{c - 1}")
        else:
            board.clear()
            for i, (x, y, _) in enumerate(given):
                board[(x, y)] = 2 if i % 2 else 1  # colours alternate from black; I play white
            move()
    elif cmd == "END":
        break
    elif cmd != "INFO":
        say("UNKNOWN")
