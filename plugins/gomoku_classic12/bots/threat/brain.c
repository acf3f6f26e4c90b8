/*
 * brain.c -- "threat": a threat-aware brain for the course's 12x12 Gomoku (kothkit gomoku_classic12).
 *
 * Same protocol as the template (START/PLACE/TURN/END, DEBUG lines; see the
 * template's header and the game's README).  A move is chosen in three steps:
 *
 * 1. Threats, by shape.  Every empty cell near the stones is classified by the
 *    shapes a stone there would make, for us and for the opponent, in the four
 *    directions.  Shapes are defined by what one more stone makes of them:
 *      five        five or more in a row
 *      open four   two different cells complete a five (cannot be stopped)
 *      four        one cell completes a five (must be answered)
 *      open three  one more stone can make an open four
 *      three       one more stone can make a four
 *      open two / two: one more stone can make an open three / a three
 *    We win if we can, block a five if we must, and play a winning threat
 *    (open four, double four, four + open three) when we have one.
 * 2. Otherwise the ten best cells by those shapes (attack + defence) are
 *    searched: a fixed-depth alpha-beta over the best replies, each side forced
 *    to complete or block a five when there is one, with a board evaluation that
 *    counts the five-cell windows only one colour holds.
 * 3. Ties go to the cell nearer the centre.  No clock, no randomness: the same
 *    position always gets the same move, so tournaments replay exactly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIZE 12
#define HALF 5           /* a line is looked at 5 cells either side of the new stone */
#define LEN (2 * HALF + 1)

enum { EMPTY = 0, MINE = 1, THEIRS = 2 };
enum { L_EMPTY = 0, L_OWN = 1, L_BLOCK = 3 };
enum { S_NONE, S_TWO, S_OPEN_TWO, S_THREE, S_OPEN_THREE, S_FOUR, S_OPEN_FOUR, S_FIVE, S_COUNT };

static int board[SIZE][SIZE];
static int seen[SIZE][SIZE]; /* stones seen placed, as opposed to the assumed opening */
static const int dirs[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};

static int inside(int r, int c)
{
    return r >= 0 && r < SIZE && c >= 0 && c < SIZE;
}

static void say(const char *line)
{
    printf("%s\n", line);
    fflush(stdout);
}

static void new_game(int colour)
{
    memset(board, 0, sizeof board);
    memset(seen, 0, sizeof seen);
    int black = colour == 1 ? MINE : THEIRS, white = colour == 1 ? THEIRS : MINE;
    board[5][5] = board[6][6] = black;
    board[5][6] = board[6][5] = white;
}

/* Run of own stones through the centre of a line. */
static int run(const int *l)
{
    int n = 1, i;
    for (i = HALF - 1; i >= 0 && l[i] == L_OWN; i--)
        n++;
    for (i = HALF + 1; i < LEN && l[i] == L_OWN; i++)
        n++;
    return n;
}

/* Empty cells of the line that would complete a five through the centre. */
static int win_points(int *l)
{
    int n = 0;
    for (int i = 0; i < LEN; i++) {
        if (l[i] != L_EMPTY)
            continue;
        l[i] = L_OWN;
        if (run(l) >= 5)
            n++;
        l[i] = L_EMPTY;
    }
    return n;
}

/* Shape of the line, given its centre holds an own stone; `depth` bounds the recursion. */
static int shape(int *l, int depth)
{
    if (run(l) >= 5)
        return S_FIVE;
    int w = win_points(l);
    if (w >= 2)
        return S_OPEN_FOUR;
    if (w == 1)
        return S_FOUR;
    if (depth == 0)
        return S_NONE;
    int best = S_NONE;
    for (int i = HALF - 4; i <= HALF + 4; i++) {
        if (l[i] != L_EMPTY)
            continue;
        l[i] = L_OWN;
        int s = shape(l, depth - 1);
        l[i] = L_EMPTY;
        /* one stone more: open four -> open three, four -> three, open three -> open two, three -> two */
        int down = s == S_OPEN_FOUR ? S_OPEN_THREE : s == S_FOUR ? S_THREE
                 : s == S_OPEN_THREE ? S_OPEN_TWO : s == S_THREE ? S_TWO : S_NONE;
        if (down > best)
            best = down;
    }
    return best;
}

/* Shapes a stone of `who` on empty (r, c) makes, counted over the four directions. */
static void shapes_at(int r, int c, int who, int count[S_COUNT])
{
    memset(count, 0, S_COUNT * sizeof count[0]);
    for (int d = 0; d < 4; d++) {
        int l[LEN];
        for (int i = 0; i < LEN; i++) {
            int y = r + (i - HALF) * dirs[d][0], x = c + (i - HALF) * dirs[d][1];
            if (!inside(y, x))
                l[i] = L_BLOCK;
            else if (board[y][x] == EMPTY)
                l[i] = L_EMPTY;
            else
                l[i] = board[y][x] == who ? L_OWN : L_BLOCK;
        }
        l[HALF] = L_OWN;
        count[shape(l, 2)]++;
    }
}

static long value(const int n[S_COUNT])
{
    if (n[S_FIVE])
        return 100000000L;
    if (n[S_OPEN_FOUR] || n[S_FOUR] >= 2 || (n[S_FOUR] && n[S_OPEN_THREE]))
        return 10000000L;
    if (n[S_OPEN_THREE] >= 2)
        return 1000000L;
    return 20000L * n[S_FOUR] + 15000L * n[S_OPEN_THREE] + 3000L * n[S_THREE] +
           1000L * n[S_OPEN_TWO] + 200L * n[S_TWO] + 10L * (n[S_NONE] < 4);
}

static int near_stone(int r, int c)
{
    for (int dr = -2; dr <= 2; dr++)
        for (int dc = -2; dc <= 2; dc++)
            if (inside(r + dr, c + dc) && board[r + dr][c + dc] != EMPTY)
                return 1;
    return 0;
}

/* ---- step 2: search --------------------------------------------------------------- */
#define DEPTH 4          /* plies searched after the root move's candidates are ordered */
#define WIDTH 8          /* replies tried at each inner node */
#define ROOT_WIDTH 10
#define WIN 1000000000L

/* Value of a five-cell window holding k stones of one colour and none of the other. */
static const long window_value[6] = {0, 1, 12, 120, 1500, 0};

static int makes_five(int r, int c, int who)
{
    for (int d = 0; d < 4; d++) {
        int n = 1;
        for (int s = -1; s <= 1; s += 2) {
            int y = r + s * dirs[d][0], x = c + s * dirs[d][1];
            while (inside(y, x) && board[y][x] == who) {
                n++;
                y += s * dirs[d][0];
                x += s * dirs[d][1];
            }
        }
        if (n >= 5)
            return 1;
    }
    return 0;
}

/* The board from `who`'s side, `who` to move: their windows count a little more (tempo). */
static long evaluate(int who)
{
    long own = 0, other = 0;
    for (int d = 0; d < 4; d++)
        for (int r = 0; r < SIZE; r++)
            for (int c = 0; c < SIZE; c++) {
                int er = r + 4 * dirs[d][0], ec = c + 4 * dirs[d][1];
                if (!inside(er, ec))
                    continue;
                int a = 0, b = 0;
                for (int i = 0; i < 5; i++) {
                    int v = board[r + i * dirs[d][0]][c + i * dirs[d][1]];
                    a += v == who;
                    b += v != EMPTY && v != who;
                }
                if (b == 0)
                    own += window_value[a];
                else if (a == 0)
                    other += window_value[b];
            }
    return own + own / 4 - other;
}

/* Quick cell score for move ordering inside the search: windows through (r, c). */
static long quick_score(int r, int c, int who)
{
    long total = 0;
    for (int d = 0; d < 4; d++)
        for (int start = -4; start <= 0; start++) {
            int a = 0, b = 0, ok = 1;
            for (int i = 0; i < 5 && ok; i++) {
                int y = r + (start + i) * dirs[d][0], x = c + (start + i) * dirs[d][1];
                if (!inside(y, x)) {
                    ok = 0;
                    break;
                }
                a += board[y][x] == who;
                b += board[y][x] != EMPTY && board[y][x] != who;
            }
            if (!ok)
                continue;
            if (b == 0)
                total += window_value[a + 1 > 4 ? 4 : a + 1] * 2;
            if (a == 0)
                total += window_value[b];
        }
    return total;
}

typedef struct {
    int r, c;
    long score;
} Cand;

static int by_score(const void *x, const void *y)
{
    const Cand *a = x, *b = y;
    if (a->score != b->score)
        return a->score < b->score ? 1 : -1;
    int da = abs(2 * a->r - 11) + abs(2 * a->c - 11), db = abs(2 * b->r - 11) + abs(2 * b->c - 11);
    if (da != db)
        return da - db;
    return (a->r * SIZE + a->c) - (b->r * SIZE + b->c);
}

/* The cells `who` should consider, best first; a five to make or to block comes alone. */
static int candidates(int who, Cand *out, int width)
{
    int n = 0, other = who == MINE ? THEIRS : MINE, block = -1;
    for (int r = 0; r < SIZE; r++)
        for (int c = 0; c < SIZE; c++) {
            if (board[r][c] != EMPTY || !near_stone(r, c))
                continue;
            if (makes_five(r, c, who)) {
                out[0] = (Cand){r, c, WIN};
                return 1;
            }
            if (block < 0 && makes_five(r, c, other))
                block = r * SIZE + c;
            out[n++] = (Cand){r, c, quick_score(r, c, who)};
        }
    if (block >= 0) {
        out[0] = (Cand){block / SIZE, block % SIZE, 0};
        return 1;
    }
    qsort(out, n, sizeof *out, by_score);
    return n < width ? n : width;
}

static long negamax(int who, int depth, long alpha, long beta)
{
    if (depth == 0)
        return evaluate(who);
    Cand list[SIZE * SIZE];
    int n = candidates(who, list, WIDTH);
    if (n == 0)
        return 0; /* full board: a draw */
    int other = who == MINE ? THEIRS : MINE;
    long best = -WIN * 2;
    for (int i = 0; i < n; i++) {
        int r = list[i].r, c = list[i].c;
        board[r][c] = who;
        long v = makes_five(r, c, who) ? WIN + depth : -negamax(other, depth - 1, -beta, -alpha);
        board[r][c] = EMPTY;
        if (v > best)
            best = v;
        if (v > alpha)
            alpha = v;
        if (alpha >= beta)
            break;
    }
    return best;
}

/* ---- step 1b: victory by continuous fours ------------------------------------------- */
#define VCF_DEPTH 12

/* Empty cells on the lines through (r, c) where `who` would complete a five: up to 2 found. */
static int five_points(int r, int c, int who, int *pr, int *pc)
{
    int n = 0;
    for (int d = 0; d < 4; d++)
        for (int k = -4; k <= 4; k++) {
            int y = r + k * dirs[d][0], x = c + k * dirs[d][1];
            if (k == 0 || !inside(y, x) || board[y][x] != EMPTY || !makes_five(y, x, who))
                continue;
            if (n == 1 && y == *pr && x == *pc)
                continue;
            if (n == 0) {
                *pr = y;
                *pc = x;
            }
            if (++n >= 2)
                return n;
        }
    return n;
}

/*
 * Can `who` (to move, the opponent having no five to make) win by playing fours
 * only, each answered by the opponent's forced block?  Sets (*row, *col) to the first four.
 */
static int vcf(int who, int depth, int *row, int *col)
{
    if (depth == 0)
        return 0;
    int other = who == MINE ? THEIRS : MINE;
    for (int r = 0; r < SIZE; r++)
        for (int c = 0; c < SIZE; c++) {
            if (board[r][c] != EMPTY || !near_stone(r, c))
                continue;
            board[r][c] = who;
            int br, bc, n = five_points(r, c, who, &br, &bc), win = 0;
            if (n >= 2) {
                win = 1; /* an open four or a double four: one block cannot stop both */
            } else if (n == 1) {
                board[br][bc] = other;
                /* The block must not make the opponent a five, nor leave them one to make first. */
                int fr, fc;
                if (!makes_five(br, bc, other) && five_points(br, bc, other, &fr, &fc) == 0) {
                    int nr, nc;
                    win = vcf(who, depth - 1, &nr, &nc);
                }
                board[br][bc] = EMPTY;
            }
            board[r][c] = EMPTY;
            if (win) {
                *row = r;
                *col = c;
                return 1;
            }
        }
    return 0;
}

/* ---- choosing a move ------------------------------------------------------------------ */
static long choose(int *row, int *col)
{
    Cand list[SIZE * SIZE];
    int n = 0, count[S_COUNT];
    *row = -1;
    for (int r = 0; r < SIZE; r++)
        for (int c = 0; c < SIZE; c++) {
            if (board[r][c] != EMPTY || !near_stone(r, c))
                continue;
            shapes_at(r, c, MINE, count);
            long attack = value(count);
            shapes_at(r, c, THEIRS, count);
            long defence = value(count);
            /* Our own threat of a rank beats blocking the same rank: it forces them first. */
            list[n++] = (Cand){r, c, attack + attack / 5 + defence};
        }
    if (n == 0) {
        /* Nothing near a stone: an empty board (the "empty" opening) or only far cells left. */
        int best_dist = 1000;
        for (int r = 0; r < SIZE; r++)
            for (int c = 0; c < SIZE; c++)
                if (board[r][c] == EMPTY && abs(2 * r - 11) + abs(2 * c - 11) < best_dist) {
                    best_dist = abs(2 * r - 11) + abs(2 * c - 11);
                    *row = r;
                    *col = c;
                }
        if (*row >= 0)
            return 0;
        /* Every cell is taken as far as we know: an assumed opening stone was never there. */
        for (int r = 0; r < SIZE; r++)
            for (int c = 0; c < SIZE; c++)
                if (!seen[r][c]) {
                    *row = r;
                    *col = c;
                    return 0;
                }
        *row = *col = 0;
        return 0;
    }
    qsort(list, n, sizeof *list, by_score);
    *row = list[0].r;
    *col = list[0].c;
    /* Step 1: a five to make, or one of theirs to block, needs no search. */
    if (list[0].score >= 100000000L)
        return list[0].score;
    /* Step 1b: a forced win by fours (this finds open fours, double fours, four-threes). */
    if (vcf(MINE, VCF_DEPTH, row, col))
        return WIN;
    /* Step 2: search the best few; a move after which they win by fours is a last resort. */
    long best = -WIN * 8, alpha = -WIN * 4;
    int width = n < ROOT_WIDTH ? n : ROOT_WIDTH;
    for (int i = 0; i < width; i++) {
        int r = list[i].r, c = list[i].c, vr, vc;
        board[r][c] = MINE;
        long v = vcf(THEIRS, VCF_DEPTH, &vr, &vc) ? -WIN * 2 - i
                                                  : -negamax(THEIRS, DEPTH - 1, -WIN * 4, -alpha);
        board[r][c] = EMPTY;
        if (v > best) {
            best = v;
            alpha = v;
            *row = r;
            *col = c;
        }
    }
    return best;
}

int main(void)
{
    char line[256], out[96];
    int moves = 0;
    while (fgets(line, sizeof line, stdin)) {
        int a, b;
        if (sscanf(line, "START %d", &a) == 1) {
            new_game(a);
            say("OK");
        } else if (sscanf(line, "PLACE %d %d", &a, &b) == 2) {
            if (inside(a, b)) {
                board[a][b] = THEIRS;
                seen[a][b] = 1;
            }
        } else if (strncmp(line, "TURN", 4) == 0) {
            int r, c;
            long score = choose(&r, &c);
            board[r][c] = MINE;
            seen[r][c] = 1;
            moves++;
            snprintf(out, sizeof out, "%d %d", r, c);
            say(out);
            if (score >= 1000000L) {
                snprintf(out, sizeof out, "DEBUG move %d: %d %d scores %ld", moves, r, c, score);
                say(out);
            }
        } else if (sscanf(line, "END %d", &a) == 1) {
            return 0;
        }
    }
    return 0;
}
