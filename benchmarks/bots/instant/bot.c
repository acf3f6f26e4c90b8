/* An instant-reply Swap2 bot for the referee benchmark: answers every prompt with the first
   empty cell in row-major order (parsing the board), so its own time is a few microseconds. */
#include <stdio.h>
#include <string.h>

static char line[1 << 16];

int main(void) {
    while (fgets(line, sizeof line, stdin)) {
        if (line[0] == 'E') return 0;
        if (line[0] == 'A') { puts("(0,0) (0,1) (0,2)"); fflush(stdout); continue; }
        if (line[0] == 'B' || line[0] == 'C') { puts("B"); fflush(stdout); continue; }
        static char used[15][15];
        memset(used, 0, sizeof used);
        for (char *p = line; (p = strstr(p, "((")) != NULL; p += 2) {
            int x, y;
            if (sscanf(p, "((%d,%d)", &x, &y) == 2 && x >= 0 && x < 15 && y >= 0 && y < 15) used[x][y] = 1;
        }
        int done = 0;
        for (int x = 0; x < 15 && !done; x++)
            for (int y = 0; y < 15 && !done; y++)
                if (!used[x][y]) { printf("(%d,%d)\n", x, y); done = 1; }
        fflush(stdout);
    }
    return 0;
}
