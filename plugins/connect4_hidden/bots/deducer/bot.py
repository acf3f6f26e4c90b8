"""deducer: a blindfold Connect-4 bot that works out where the hidden stones must be.

What the view does not show can still be deduced:

* Stones never float.  A 0 below any visible stone in the same column is an
  opponent stone under the tape.
* The turn number says how many moves the opponent has made.  The ones not
  found above are still hidden, and each can only sit on top of a column whose
  known fill ends at a taped row (0, 2 or 4): a stone above it would be in an
  untaped row, so it would be visible.

So the bot lists every placement of the unaccounted stones on those columns
(each placement is one possible true board; if some column is full, the
opponent may also have passed, so fewer hidden stones are possible).  On each
of these boards it scores every column with bitboards: a win now, letting the
opponent win on the next move, the threats it makes, and the open lines through
the cell.  It plays the column with the best mean score.  It keeps no state.
"""

from itertools import combinations

ROWS, COLS, STRIDE = 6, 7, 7
BOTTOM = sum(1 << (c * STRIDE) for c in range(COLS))
FULL = BOTTOM * ((1 << ROWS) - 1)
CENTER = (0, 1, 2, 4, 2, 1, 0)


def _bit(r, c):
    return 1 << (c * STRIDE + r)


def _windows():
    """Every line of four cells as a bitmask, and the lines through each cell."""
    lines = []
    for r in range(ROWS):
        for c in range(COLS):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(r + k * dr, c + k * dc) for k in range(4)]
                if all(0 <= rr < ROWS and 0 <= cc < COLS for rr, cc in cells):
                    lines.append(sum(_bit(rr, cc) for rr, cc in cells))
    through = {}
    for r in range(ROWS):
        for c in range(COLS):
            b = _bit(r, c)
            through[b] = tuple(w for w in lines if w & b)
    return through


THROUGH = _windows()


def _wins(p, empty):
    """The empty cells where a stone would give bitboard ``p`` four in a row."""
    w = (p << 1) & (p << 2) & (p << 3)
    for s in (STRIDE, STRIDE - 1, STRIDE + 1):
        a = (p << s) & (p << 2 * s)
        w |= a & (p << 3 * s)
        w |= a & (p >> s)
        b = (p >> s) & (p >> 2 * s)
        w |= b & (p << s)
        w |= b & (p >> 3 * s)
    return w & empty


def _score(me, opp, heights):
    """Scores of the 7 columns on one fully known board (None for a full column)."""
    mask = me | opp
    empty = FULL & ~mask
    playable = 0
    for c in range(COLS):
        if heights[c] < ROWS:
            playable |= _bit(heights[c], c)
    my_wins = _wins(me, empty)
    opp_wins = _wins(opp, empty)
    scores = []
    for c in range(COLS):
        h = heights[c]
        if h >= ROWS:
            scores.append(None)
            continue
        x = _bit(h, c)
        if x & my_wins:
            scores.append(10000)
            continue
        above = x << 1 if h + 1 < ROWS else 0
        after = (playable & ~x) | above
        if after & opp_wins & ~x:
            # The opponent can win next move (if it sees it: it is blindfolded too).
            scores.append(-2000)
            continue
        s = 0
        if playable & opp_wins & x:
            s += 900  # blocks an immediate win
        mine = me | x
        new_wins = _wins(mine, empty & ~x) & ~my_wins
        s += 12 * bin(new_wins).count("1")
        if bin(new_wins & after).count("1") >= 2:
            s += 400  # two threats at once: one of them stays open
        if above & my_wins:
            s -= 25  # we would fill the cell under our own winning cell
        for w in THROUGH[x]:
            if not w & opp:
                s += 1 + 3 * bin(w & me).count("1")
            elif not w & me:
                s += 2 * bin(w & opp).count("1")  # spoils the opponent's line
        if not h & 1:
            s += 2  # a taped row: the opponent will not see this stone
        s += CENTER[c]
        scores.append(s)
    return scores


def deducer(view, turn, state):
    me = 1 if turn % 2 == 0 else 2
    my_bits = opp_bits = 0
    heights = [0] * COLS
    for c in range(COLS):
        top = 0
        for r in range(ROWS):
            if view[r][c]:
                top = r + 1
        heights[c] = top
        for r in range(top):
            # Below a visible stone, a 0 is a stone under the tape: the opponent's.
            if view[r][c] == me:
                my_bits |= _bit(r, c)
            else:
                opp_bits |= _bit(r, c)
    hidden = (turn + 1) // 2 - bin(opp_bits).count("1")
    spots = [c for c in range(COLS) if heights[c] < ROWS and not heights[c] & 1]
    k = max(0, min(hidden, len(spots)))
    if any(h == ROWS for h in heights):
        sizes = range(k + 1)  # the opponent may have passed on a full column
    else:
        sizes = (k,)
    totals = [0.0] * COLS
    for size in sizes:
        for cols in combinations(spots, size):
            opp = opp_bits
            hs = heights[:]
            for c in cols:
                opp |= _bit(hs[c], c)
                hs[c] += 1
            for c, s in enumerate(_score(my_bits, opp, hs)):
                if s is None:
                    totals[c] -= 5000  # a pass, if this board is the true one
                else:
                    totals[c] += s
    best = max(range(COLS), key=lambda c: (totals[c], CENTER[c], -c))
    return best, state
