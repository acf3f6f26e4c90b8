"""blocker: win if it can, else block the opponent's winning cell, else the free cell nearest the centre."""

import sys


def lines_through(rows, r, c, mark, k):
    """Whether putting ``mark`` at (r, c) makes k in a row."""
    m, n = len(rows), len(rows[0])
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        count = 1
        for sign in (1, -1):
            rr, cc = r + sign * dr, c + sign * dc
            while 0 <= rr < m and 0 <= cc < n and rows[rr][cc] == mark:
                count += 1
                rr, cc = rr + sign * dr, cc + sign * dc
        if count >= k:
            return True
    return False


def choose(mark, k, rows):
    other = "O" if mark == "X" else "X"
    empty = [(r, c) for r, row in enumerate(rows) for c, cell in enumerate(row) if cell == "."]
    for who in (mark, other):
        for r, c in empty:
            if lines_through(rows, r, c, who, k):
                return r, c
    m, n = len(rows), len(rows[0])
    return min(empty, key=lambda rc: (abs(rc[0] - (m - 1) / 2) + abs(rc[1] - (n - 1) / 2), rc))


for line in sys.stdin:
    words = line.split()
    if not words or words[0] == "END":
        break
    if words[0] == "TURN":
        r, c = choose(words[1], int(words[2]), words[3].split("/"))
        print(r, c, flush=True)
