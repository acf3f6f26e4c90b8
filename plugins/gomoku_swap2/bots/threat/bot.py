#!/usr/bin/env python3
"""threat: a pattern-scoring Gomoku (Swap2) bot for kothkit's gomoku_swap2 game.

Usage: bot.py OPPONENT_NAME SEED.  Reads one judge line at a time from stdin
and answers one line, until EXIT or end of input.

Every empty cell near the stones is scored twice, once as if we played it and
once as if the opponent did, by the shapes it makes along the four lines
through it: five, open four (two ways to finish), four, open three (can become
an open four), and the open five-cell windows it joins.  Our own threats weigh
more than the same threat of the opponent, except that blocking a five comes
before anything but our own five.  Ties are broken with the seeded random
generator, so the same seed plays the same game.
"""

import random
import re
import sys

SIZE = 15
PAD = 4
W = SIZE + 2 * PAD
EMPTY, BLACK, WHITE, WALL = 0, 1, 2, 3
STEPS = (1, W, W + 1, W - 1)  # across, down, and the two diagonals
SPAN = tuple(tuple(k * d for k in range(-4, 5)) for d in STEPS)
CELLS = [(y + PAD) * W + x + PAD for y in range(SIZE) for x in range(SIZE)]
NEAR = tuple(dy * W + dx for dy in range(-2, 3) for dx in range(-2, 3) if dx or dy)

# Shape levels, strongest last: 0 nothing, 1 open three, 2 four, 3 two open threes,
# 4 four and open three, 5 open four (or two fours), 6 five.
ATTACK = (0, 5_000, 10_000, 1_000_000, 4_000_000, 10_000_000, 100_000_000)
DEFEND = (0, 3_000, 4_000, 300_000, 800_000, 2_000_000, 50_000_000)
WINDOW = (0, 1, 6, 30, 150, 0)  # open five-cell windows by the stones they hold


def index(x, y):
    return (y + PAD) * W + x + PAD


def coords(i):
    return i % W - PAD, i // W - PAD


def new_board():
    b = [WALL] * (W * W)
    for i in CELLS:
        b[i] = EMPTY
    return b


_STONE = re.compile(r'\(\((\d+),(\d+)\),"([BW])"\)')


def read_board(text):
    b = new_board()
    count = 0
    for x, y, c in _STONE.findall(text):
        b[index(int(x), int(y))] = BLACK if c == "B" else WHITE
        count += 1
    return b, count


def _finishes(line):
    """Cells completing five in windows through the centre; None if the line already holds five."""
    done = set()
    for s in range(5):
        w = line[s:s + 5]
        if -1 in w:  # a blocked cell: no five fits here
            continue
        ones = w.count(1)
        if ones == 5:
            return None
        if ones == 4:
            done.add(s + w.index(0))
    return done


_SHAPES = {}


def shape(key):
    """(five, ways to finish five, open three, window score) of a 9-cell line with us in the centre."""
    color, raw = key[0], key[1:]
    line = [1 if v == color else 0 if v == EMPTY else -1 for v in raw]
    line[4] = 1
    ways = _finishes(line)
    if ways is None:
        return (True, 0, False, 0)
    three = False
    if not ways:
        for e in range(9):
            if line[e] == 0:
                line[e] = 1
                after = _finishes(line)
                line[e] = 0
                if after is not None and len(after) >= 2:
                    three = True
                    break
    score = 0
    for s in range(5):
        w = line[s:s + 5]
        if -1 not in w:
            score += WINDOW[w.count(1)]
    return (False, len(ways), three, score)


def evaluate(board, i, color):
    """(shape level, window score) of playing ``color`` at empty cell ``i``."""
    fours = open4 = threes = score = 0
    five = False
    for span in SPAN:
        key = (color,) + tuple(board[i + k] for k in span)
        r = _SHAPES.get(key)
        if r is None:
            r = _SHAPES[key] = shape(key)
        if r[0]:
            five = True
        elif r[1] >= 2:
            open4 += 1
        elif r[1] == 1:
            fours += 1
        elif r[2]:
            threes += 1
        score += r[3]
    if five:
        level = 6
    elif open4 or fours >= 2:
        level = 5
    elif fours and threes:
        level = 4
    elif threes >= 2:
        level = 3
    elif fours:
        level = 2
    elif threes:
        level = 1
    else:
        level = 0
    return level, score


def candidates(board):
    near = set()
    for i in CELLS:
        if board[i] in (BLACK, WHITE):
            for d in NEAR:
                j = i + d
                if board[j] == EMPTY:
                    near.add(j)
    if not near:
        near = {index(7, 7)} if board[index(7, 7)] == EMPTY else {i for i in CELLS if board[i] == EMPTY}
    return sorted(near)


def centrality(i):
    x, y = coords(i)
    return -(abs(x - 7) + abs(y - 7)) * 0.01


def best_move(board, me, rng):
    opp = BLACK + WHITE - me
    best, best_score = None, None
    for i in candidates(board):
        la, sa = evaluate(board, i, me)
        ld, sd = evaluate(board, i, opp)
        score = ATTACK[la] + DEFEND[ld] + sa + 0.8 * sd + centrality(i) + rng.random() * 0.005
        if best_score is None or score > best_score:
            best, best_score = i, score
    return best


def windows_total(board, color):
    """Sum of WINDOW over every five-cell window holding only ``color`` stones (and blanks)."""
    total = 0
    for i in CELLS:
        for d in STEPS:
            cells = [board[i + k * d] for k in range(5)]
            if WALL in cells or (BLACK + WHITE - color) in cells:
                continue
            total += WINDOW[min(cells.count(color), 4)]
    return total


def position_value(board, me, to_move):
    """A static guess of how good the position is for ``me`` with ``to_move`` to play."""
    opp = BLACK + WHITE - me
    value = windows_total(board, me) - windows_total(board, opp)
    # The side to move converts its best threat first: count its best cell once.
    if to_move is not None:
        best = max(ATTACK[evaluate(board, i, to_move)[0]] + evaluate(board, i, to_move)[1] for i in candidates(board))
        value += best if to_move == me else -best
    return value


def cell(i):
    x, y = coords(i)
    return f"({x},{y})"


def opening(rng):
    # Two black stones split by the white one: black gets little, so "B" is no free win for the other player.
    cx, cy = 7 + rng.randint(-1, 1), 7 + rng.randint(-1, 1)
    dx, dy = rng.choice(((1, 0), (0, 1), (1, 1), (1, -1)))
    b1 = index(cx - dx, cy - dy)
    b2 = index(cx + dx, cy + dy)
    w = index(cx, cy)
    return f"{cell(b1)} {cell(b2)} {cell(w)}"


def choose_side(board):
    """Answer to B: play black as it stands, or add a white stone and play white."""
    as_black = position_value(board, BLACK, BLACK)
    trial = list(board)
    w = best_move(trial, WHITE, random.Random(0))
    trial[w] = WHITE
    as_white = position_value(trial, WHITE, BLACK)
    return "B" if as_black >= as_white else f"W {cell(w)}"


def choose_color(board):
    """Answer to C: the colour worth more with black to move next."""
    return "B" if position_value(board, BLACK, BLACK) >= position_value(board, WHITE, BLACK) else "W"


def answer(line, rng):
    tag, _, rest = line.partition(" ")
    if tag == "A":
        return opening(rng)
    board, _ = read_board(rest)
    if tag == "B":
        return choose_side(board)
    if tag == "C":
        return choose_color(board)
    # Game phase: black moves on even rounds.
    me = BLACK if int(tag) % 2 == 0 else WHITE
    return cell(best_move(board, me, rng))


def main():
    seed = int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[2].lstrip("-").isdigit() else 0
    rng = random.Random(seed)
    while True:
        line = sys.stdin.readline()
        if not line:
            break
        line = line.strip()
        if not line:
            continue
        if line.startswith("EXIT"):
            break
        sys.stdout.write(answer(line, rng) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
