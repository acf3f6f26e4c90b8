"""A classic12 brain with one protocol mistake: it also answers PLACE (a notice) with a move."""

import sys

board = set()


def move():
    for r in range(12):
        for c in range(12):
            if (r, c) not in board:
                board.add((r, c))
                return f"{r} {c}"


for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "START":
        print("OK", flush=True)
    elif words[0] == "PLACE":
        board.add((int(words[1]), int(words[2])))
        print(move(), flush=True)  # the mistake: PLACE needs no reply
    elif words[0] == "TURN":
        print(move(), flush=True)
    elif words[0] == "END":
        break
