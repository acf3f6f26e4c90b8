"""pywindow: a Python brain for the course's 12x12 Gomoku (kothkit game gomoku_classic12).

Protocol: START 1|2 -> OK; PLACE X Y (no answer); TURN -> "X Y"; END 0|1|2.
Every game starts with black on (5,5) (6,6) and white on (5,6) (6,5).

Move choice: every empty cell near a stone is scored by the five-cell windows
through it: a window free of the opponent's stones is worth more the more of
ours it would hold (attack); one free of ours is worth more the more of theirs
it holds (defence: taking the cell spoils it).  Completing five beats
blocking one, which beats everything else.
"""

import sys

SIZE = 12
EMPTY, MINE, THEIRS = 0, 1, 2
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))
ATTACK = {1: 1, 2: 12, 3: 120, 4: 1500, 5: 1_000_000}
DEFENCE = {0: 0, 1: 1, 2: 10, 3: 400, 4: 100_000}


def inside(r, c):
    return 0 <= r < SIZE and 0 <= c < SIZE


def new_board(colour):
    board = [[EMPTY] * SIZE for _ in range(SIZE)]
    black, white = (MINE, THEIRS) if colour == 1 else (THEIRS, MINE)
    board[5][5] = board[6][6] = black
    board[5][6] = board[6][5] = white
    return board


def score(board, r, c):
    total = 0
    for dr, dc in DIRECTIONS:
        for start in range(-4, 1):
            cells = [(r + (start + i) * dr, c + (start + i) * dc) for i in range(5)]
            if not all(inside(y, x) for y, x in cells):
                continue
            values = [board[y][x] for y, x in cells]
            mine, theirs = values.count(MINE), values.count(THEIRS)
            if theirs == 0:
                total += ATTACK[mine + 1]
            if mine == 0:
                total += DEFENCE[theirs]
    return total


def near_stone(board, r, c):
    return any(inside(r + dr, c + dc) and board[r + dr][c + dc] != EMPTY
               for dr in (-2, -1, 0, 1, 2) for dc in (-2, -1, 0, 1, 2))


def choose(board):
    empty = [(r, c) for r in range(SIZE) for c in range(SIZE) if board[r][c] == EMPTY]
    near = [cell for cell in empty if near_stone(board, *cell)] or empty
    # Ties go to the cell nearest the centre, then to the first in reading order.
    return max(near, key=lambda rc: (score(board, *rc), -abs(2 * rc[0] - 11) - abs(2 * rc[1] - 11)))


def main():
    board = new_board(1)
    for line in sys.stdin:
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "START":
            board = new_board(int(parts[1]))
            print("OK", flush=True)
        elif parts[0] == "PLACE":
            r, c = int(parts[1]), int(parts[2])
            if inside(r, c):
                board[r][c] = THEIRS
        elif parts[0] == "TURN":
            empty = any(EMPTY in row for row in board)
            if empty:
                r, c = choose(board)
            else:  # only the assumed opening stones are left: they were never there
                r, c = 5, 5
            board[r][c] = MINE
            print(f"{r} {c}", flush=True)
        elif parts[0] == "END":
            print(f"DEBUG pywindow: END {parts[1]}", flush=True)
            return


if __name__ == "__main__":
    main()
