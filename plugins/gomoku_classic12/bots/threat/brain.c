/*
 * brain.c -- "threat": a threat-aware brain for the course's 12x12 Gomoku (kothkit gomoku_classic12).
 *
 * Same protocol as the template (START/PLACE/TURN/END, DEBUG lines; see the
 * template's header and the game's README).  Move choice, one ply, no search:
 * every empty cell near the stones is scored by the shapes a stone there would
 * make, for us (attack) and for the opponent (defence), in the four directions.
 * Shapes are defined by what one more stone makes of them, the usual way:
 *   five        five or more in a row
 *   open four   two different cells complete a five (cannot be stopped)
 *   four        one cell completes a five (must be answered)
 *   open three  one more stone can make an open four
 *   three       one more stone can make a four
 *   open two / two: one more stone can make an open three / a three
 * Priorities fall out of the weights: win > block a five > make an unstoppable
 * threat (open four, double four, four + open three) > block the opponent's >
 * double open three > ... ; ties go to the cell nearer the centre.
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

static long choose(int *row, int *col)
{
    long best = -1;
    int best_dist = 1000, count[S_COUNT];
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
            long score = attack + attack / 5 + defence;
            int dist = abs(2 * r - 11) + abs(2 * c - 11);
            if (score > best || (score == best && dist < best_dist)) {
                best = score;
                best_dist = dist;
                *row = r;
                *col = c;
            }
        }
    if (*row >= 0)
        return best;
    /* Nothing near a stone: an empty board (the "empty" opening) or only far cells left. */
    for (int r = 0; r < SIZE; r++)
        for (int c = 0; c < SIZE; c++)
            if (board[r][c] == EMPTY) {
                int dist = abs(2 * r - 11) + abs(2 * c - 11);
                if (dist < best_dist) {
                    best_dist = dist;
                    *row = r;
                    *col = c;
                }
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
