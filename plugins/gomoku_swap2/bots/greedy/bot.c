/* greedy: a small greedy Gomoku (Swap2) bot in C for kothkit's gomoku_swap2 game.
 *
 * Usage: ./bot OPPONENT_NAME SEED.  One judge line in, one line out, until EXIT.
 * Every empty cell next to a stone is scored by the longest run it would make
 * for us and the longest it would stop for the opponent (a five first, then a
 * block of the opponent's five); ties go to a seeded generator, so the same seed
 * plays the same game.  In the opening it places a white stone and plays white.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIZE 15

static char board[SIZE][SIZE]; /* 0 empty, 'B', 'W' */
static unsigned long long rng_state;

static unsigned rnd(void) { /* xorshift64*: small, seeded, reproducible */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (unsigned)((rng_state * 2685821657736338717ULL) >> 33);
}

static void read_board(const char *s) {
    memset(board, 0, sizeof board);
    /* entries look like ((x,y),"C"); scan for each "((" */
    while ((s = strstr(s, "((")) != NULL) {
        int x, y;
        char c;
        if (sscanf(s, "((%d,%d),\"%c\")", &x, &y, &c) == 3 && x >= 0 && x < SIZE && y >= 0 && y < SIZE)
            board[x][y] = c;
        s += 2;
    }
}

static int inside(int x, int y) { return x >= 0 && y >= 0 && x < SIZE && y < SIZE; }

static int run_through(int x, int y, char color) {
    static const int dirs[4][2] = {{1, 0}, {0, 1}, {1, 1}, {1, -1}};
    int best = 0;
    for (int d = 0; d < 4; d++) {
        int n = 1;
        for (int s = -1; s <= 1; s += 2) {
            int cx = x + s * dirs[d][0], cy = y + s * dirs[d][1];
            while (inside(cx, cy) && board[cx][cy] == color) {
                n++;
                cx += s * dirs[d][0];
                cy += s * dirs[d][1];
            }
        }
        if (n > best) best = n;
    }
    return best;
}

static int near_stone(int x, int y) {
    for (int dx = -1; dx <= 1; dx++)
        for (int dy = -1; dy <= 1; dy++)
            if ((dx || dy) && inside(x + dx, y + dy) && board[x + dx][y + dy]) return 1;
    return 0;
}

static void best_cell(char me, int *bx, int *by) {
    char opp = me == 'B' ? 'W' : 'B';
    int best = -1, ties = 0, any_near = 0;
    for (int x = 0; x < SIZE; x++)
        for (int y = 0; y < SIZE; y++)
            if (!board[x][y] && near_stone(x, y)) any_near = 1;
    for (int x = 0; x < SIZE; x++) {
        for (int y = 0; y < SIZE; y++) {
            if (board[x][y] || (any_near && !near_stone(x, y))) continue;
            int mine = run_through(x, y, me), theirs = run_through(x, y, opp);
            int score = mine >= 5 ? 1000 : theirs >= 5 ? 900 : theirs >= 4 ? 800 : mine * 10 + theirs * 8;
            if (score > best) {
                best = score;
                ties = 1;
                *bx = x;
                *by = y;
            } else if (score == best && rnd() % (unsigned)++ties == 0) {
                /* reservoir sampling: each tied cell is equally likely */
                *bx = x;
                *by = y;
            }
        }
    }
}

int main(int argc, char **argv) {
    rng_state = 0x9E3779B97F4A7C15ULL ^ (argc > 2 ? strtoull(argv[2], NULL, 10) : 0);
    if (!rng_state) rng_state = 1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, stdin)) > 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = 0;
        if (!len) continue;
        if (strncmp(line, "EXIT", 4) == 0) break;
        char *rest = strchr(line, ' ');
        read_board(rest ? rest : "");
        int x = 7, y = 7;
        if (line[0] == 'A') {
            int cx = 5 + (int)(rnd() % 5), cy = 5 + (int)(rnd() % 5);
            printf("(%d,%d) (%d,%d) (%d,%d)\n", cx, cy, cx + 1, cy + 1, cx + 1, cy);
        } else if (line[0] == 'B') {
            best_cell('W', &x, &y);
            printf("W (%d,%d)\n", x, y);
        } else if (line[0] == 'C') {
            printf("B\n");
        } else {
            char me = atoi(line) % 2 == 0 ? 'B' : 'W'; /* black moves on even rounds */
            best_cell(me, &x, &y);
            printf("(%d,%d)\n", x, y);
        }
        fflush(stdout);
    }
    free(line);
    return 0;
}
