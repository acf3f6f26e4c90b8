"""The seed's controller (seeds/003_f0360a17a81d419b.txt), indentation restored: the reference.

The logic is the seed's, line for line, including its quirks: ``get_outcome``
checks for a full board *before* looking for four in a row (a winning stone
that fills the board is a draw here; kothkit checks the win first, as the issue
asks), a negative column wraps around (``board[i][-1]`` is column 6) and a
column of 7 or more raises IndexError.  The only changes:
``run_tournament`` returns the counts instead of printing the table after
every round (``table`` formats it the seed's way), and takes ``rounds``.
The four example bots use the module-level ``random``, as in the seed.
"""

import itertools  # noqa: F401  (imported by the seed)
import random


def get_strides(board, i, j):
    yield ((i, k) for k in range(j + 1, 7))
    yield ((i, k) for k in range(j - 1, -1, -1))
    yield ((k, j) for k in range(i + 1, 6))
    yield ((k, j) for k in range(i - 1, -1, -1))
    directions = [(1, 1), (-1, -1), (1, -1), (-1, 1)]

    def diag(di, dj):
        i1 = i
        j1 = j
        while True:
            i1 += di
            if i1 < 0 or i1 >= 6:
                break
            j1 += dj
            if j1 < 0 or j1 >= 7:
                break
            yield (i1, j1)

    for d in directions:
        yield diag(*d)


DRAWN = 0
LOST = 1
WON = 2
UNDECIDED = 3


def get_outcome(board, i, j):
    if all(board[-1]):
        return DRAWN
    player = board[i][j]
    strides = get_strides(board, i, j)
    for _ in range(4):
        s0 = next(strides)
        s1 = next(strides)
        n = 1
        for s in (s0, s1):
            for i1, j1 in s:
                if board[i1][j1] == player:
                    n += 1
                    if n >= 4:
                        return WON
                else:
                    break
    return UNDECIDED


def apply_move(board, player, move):
    for i, row in enumerate(board):
        if board[i][move] == 0:
            board[i][move] = player
            outcome = get_outcome(board, i, move)
            return outcome
    if all(board[-1]):
        return DRAWN
    return UNDECIDED


def get_view(board, player):
    view = [list(row) for row in board]
    for i, row in enumerate(view):
        if i % 2:
            continue
        for j, x in enumerate(row):
            if x == 3 - player:
                row[j] = 0
    return view


def run_game(player1, player2):
    players = {1: player1, 2: player2}
    board = [[0] * 7 for _ in range(6)]
    states = {1: None, 2: None}
    for turn in range(6 * 7):
        p = (turn % 2) + 1
        player = players[p]
        view = get_view(board, p)
        move, state = player(view, turn, states[p])
        outcome = apply_move(board, p, move)
        if outcome == DRAWN:
            return DRAWN
        elif outcome == WON:
            return p
        else:
            states[p] = state
    return DRAWN


def get_score(counts):
    return (counts[WON] - counts[LOST]) / float(sum(counts))


def run_tournament(players, rounds=10000):
    """Every ordered pair plays once per round; returns counts[i] = [draws, losses, wins]."""
    counts = [[0] * 3 for _ in players]
    for r in range(rounds):
        for i, player1 in enumerate(players):
            for j, player2 in enumerate(players):
                if i == j:
                    continue
                outcome = run_game(player1, player2)
                if outcome == DRAWN:
                    for k in i, j:
                        counts[k][DRAWN] += 1
                else:
                    if outcome == 1:
                        w, l = i, j
                    else:
                        w, l = j, i
                    counts[w][WON] += 1
                    counts[l][LOST] += 1
    return counts


def table(players, counts):
    """The seed's table (printed after every round there), as a string."""
    ranks = sorted(range(len(players)), key=lambda i: get_score(counts[i]), reverse=True)
    rows = [("Name", "Draws", "Losses", "Wins", "Score")]
    for i in ranks:
        name = players[i].__name__
        score = get_score(counts[i])
        rows.append([name + ":"] + [str(n) for n in counts[i]] + ["%6.3f" % score])
    lengths = [max(len(s) for s in col) + 1 for col in zip(*rows)]
    out = []
    for i, row in enumerate(rows):
        padding = ((n - len(s)) * " " for s, n in zip(row, lengths))
        out.append("".join(s + p for s, p in zip(row, padding)))
        if i == 0:
            out.append("")
    return "\n".join(out)


def random_player(view, turn, state):
    return random.randrange(0, 7), state


def constant_player(view, turn, state):
    return 0, state


def better_random_player(view, turn, state):
    while True:
        j = random.randrange(0, 7)
        if view[-1][j] == 0:
            return j, state


def better_constant_player(view, turn, state):
    for j in range(7):
        if view[-1][j] == 0:
            return j, state


players = [random_player, constant_player, better_random_player, better_constant_player]
