/* greedy: a small Piskvork engine, kothkit gomocup's bundled example (built from this file).
 *
 * It speaks the protocol as Gomocup engines do (START, ABOUT, INFO, BEGIN, TURN, BOARD ... DONE,
 * SWAP2BOARD ... DONE, RESTART, END), plays a greedy move (the longest line of its own, else the
 * longest of the opponent's to block), and writes every INFO it is told to stderr ("told: INFO
 * key value"), so that tests can see the limits an engine was given.  Its arguments make it
 * behave as the engines the issue met:
 *   message     MESSAGE/message/DEBUG/debug lines before each move (logs, not replies)
 *   cr, crlf    its lines end in CR, or CR LF (LF otherwise)
 *   slow=MS     sleeps MS milliseconds before its OK to START (a slow start-up)
 *   refuse      answers START with ERROR (an unsupported board size)
 *   b=swap|one|two, c=swap|one   its answer to a Swap2 board of 3, and of 5, stones
 *   drop=MS     drops a command that comes within MS ms of its move (Rapfi's bug)
 *   noabout     answers ABOUT with UNKNOWN
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define MAXN 32
static int n = 0, board[MAXN][MAXN]; /* 0 empty, 1 mine, 2 the opponent's */
static const char *eol = "\n";
static int message = 0, slow_ms = 0, refuse = 0, drop_ms = 0, noabout = 0;
static const char *b_mode = "one", *c_mode = "one";
static double moved_at = -1;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000.0 + t.tv_nsec / 1e6;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#include <stdarg.h>
static void say(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fputs(eol, stdout);
    fflush(stdout);
}

static int run(int x, int y, int dx, int dy, int who) {
    int k = 1;
    for (int s = -1; s <= 1; s += 2) {
        int cx = x + s * dx, cy = y + s * dy;
        while (cx >= 0 && cy >= 0 && cx < n && cy < n && board[cx][cy] == who) { k++; cx += s * dx; cy += s * dy; }
    }
    return k;
}

static int best_run(int x, int y, int who) {
    static const int d[4][2] = {{1, 0}, {0, 1}, {1, 1}, {1, -1}};
    int best = 0;
    for (int i = 0; i < 4; i++) {
        int r = run(x, y, d[i][0], d[i][1], who);
        if (r > best) best = r;
    }
    return best;
}

static int near(int x, int y) {
    for (int dx = -2; dx <= 2; dx++)
        for (int dy = -2; dy <= 2; dy++) {
            int cx = x + dx, cy = y + dy;
            if (cx >= 0 && cy >= 0 && cx < n && cy < n && board[cx][cy]) return 1;
        }
    return 0;
}

/* The greedy move: five, else block five, else the longest own line weighed against the opponent's. */
static void choose(int *bx, int *by) {
    int best = -1;
    *bx = n / 2; *by = n / 2;
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++) {
            if (board[x][y] || !near(x, y)) continue;
            int mine = best_run(x, y, 1), theirs = best_run(x, y, 2);
            int score = mine >= 5 ? 1000 : theirs >= 5 ? 900 : mine * 10 + theirs * 9;
            if (score > best) { best = score; *bx = x; *by = y; }
        }
    if (best < 0) {  /* an empty board, or nothing near: the first empty cell from the centre */
        for (int r = 0; r < n; r++)
            for (int y = n / 2 - r; y <= n / 2 + r; y++)
                for (int x = n / 2 - r; x <= n / 2 + r; x++)
                    if (x >= 0 && y >= 0 && x < n && y < n && !board[x][y]) { *bx = x; *by = y; return; }
    }
}

static void move(void) {
    int x, y;
    if (message) {
        say("MESSAGE thinking about %d stones", 0);
        say("message lower case too");
        say("DEBUG depth 1");
        say("debug done");
    }
    choose(&x, &y);
    board[x][y] = 1;
    say("%d,%d", x, y);
    moved_at = now_ms();
}

/* A line of input, without its line end; NULL at the end of input. */
static char *line(char *buf, int size) {
    for (;;) {
        if (!fgets(buf, size, stdin)) return NULL;
        buf[strcspn(buf, "\r\n")] = 0;
        if (drop_ms && moved_at >= 0 && now_ms() - moved_at < drop_ms) {
            fprintf(stderr, "dropped %s\n", buf);
            moved_at = -1;
            continue;
        }
        if (buf[0]) return buf;
    }
}

static int cells(char *buf, int size, int xs[], int ys[], int fs[]) {
    int k = 0;
    while (line(buf, size) && strcasecmp(buf, "DONE") != 0) {
        int x, y, f = 0;
        if (sscanf(buf, "%d,%d,%d", &x, &y, &f) >= 2 && k < MAXN * MAXN) { xs[k] = x; ys[k] = y; fs[k] = f; k++; }
    }
    return k;
}

static void swap2(int k, int xs[], int ys[]) {
    /* Colours alternate from black; I do not know mine yet: mark them black 1, white 2. */
    memset(board, 0, sizeof board);
    for (int i = 0; i < k; i++) board[xs[i]][ys[i]] = i % 2 ? 2 : 1;
    int c = n / 2;
    if (k == 0) {
        say("%d,%d %d,%d %d,%d", c, c, c + 1, c, c - 1, c - 1);
        return;
    }
    const char *mode = k == 3 ? b_mode : c_mode;
    if (strcmp(mode, "swap") == 0) { say("SWAP"); return; }
    int free_[4][2], m = 0;
    for (int y = 0; y < n && m < 2; y++)
        for (int x = 0; x < n && m < 2; x++)
            if (!board[x][y] && abs(x - c) + abs(y - c) == 3) { free_[m][0] = x; free_[m][1] = y; m++; }
    if (strcmp(mode, "two") == 0 && k == 3) say("%d,%d %d,%d", free_[0][0], free_[0][1], free_[1][0], free_[1][1]);
    else say("%d,%d", free_[0][0], free_[0][1]);
    moved_at = now_ms();
}

int main(int argc, char **argv) {
    char buf[4096];
    int xs[MAXN * MAXN], ys[MAXN * MAXN], fs[MAXN * MAXN];
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "message")) message = 1;
        else if (!strcmp(argv[i], "cr")) eol = "\r";
        else if (!strcmp(argv[i], "crlf")) eol = "\r\n";
        else if (!strncmp(argv[i], "slow=", 5)) slow_ms = atoi(argv[i] + 5);
        else if (!strcmp(argv[i], "refuse")) refuse = 1;
        else if (!strcmp(argv[i], "noabout")) noabout = 1;
        else if (!strncmp(argv[i], "drop=", 5)) drop_ms = atoi(argv[i] + 5);
        else if (!strncmp(argv[i], "b=", 2)) b_mode = argv[i] + 2;
        else if (!strncmp(argv[i], "c=", 2)) c_mode = argv[i] + 2;
    }
    while (line(buf, sizeof buf)) {
        if (!strncasecmp(buf, "START", 5)) {
            if (slow_ms) {
                struct timespec t = {slow_ms / 1000, (slow_ms % 1000) * 1000000L};
                nanosleep(&t, NULL);
            }
            n = atoi(buf + 5);
            memset(board, 0, sizeof board);
            if (refuse || n < 5 || n > MAXN) say("ERROR unsupported board size %d", n);
            else say("OK");
        } else if (!strcasecmp(buf, "ABOUT")) {
            if (noabout) say("UNKNOWN");
            else say("name=\"greedy\", version=\"1.0\", author=\"kothkit\", country=\"CZ\"");
        } else if (!strncasecmp(buf, "INFO", 4)) {
            fprintf(stderr, "told: %s\n", buf);
        } else if (!strcasecmp(buf, "BEGIN")) {
            move();
        } else if (!strncasecmp(buf, "TURN", 4)) {
            int x, y;
            if (sscanf(buf + 4, " %d,%d", &x, &y) == 2 && x >= 0 && y >= 0 && x < n && y < n) board[x][y] = 2;
            move();
        } else if (!strcasecmp(buf, "BOARD")) {
            int k = cells(buf, sizeof buf, xs, ys, fs);
            memset(board, 0, sizeof board);
            for (int i = 0; i < k; i++) board[xs[i]][ys[i]] = fs[i] == 2 ? 2 : 1;
            move();
        } else if (!strcasecmp(buf, "SWAP2BOARD")) {
            int k = cells(buf, sizeof buf, xs, ys, fs);
            swap2(k, xs, ys);
        } else if (!strcasecmp(buf, "RESTART")) {
            memset(board, 0, sizeof board);
            say("OK");
        } else if (!strcasecmp(buf, "END")) {
            return 0;
        } else {
            say("UNKNOWN %s", buf);
        }
    }
    return 0;
}
