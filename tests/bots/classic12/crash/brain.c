/* crash: a C brain that plays two legal moves, then dereferences a null pointer (verdict: crash). */
#include <stdio.h>
#include <string.h>

int main(void)
{
    char line[128];
    int taken[12][12] = {{0}}, moves = 0;
    while (fgets(line, sizeof line, stdin)) {
        int r, c;
        if (strncmp(line, "START", 5) == 0) {
            taken[5][5] = taken[6][6] = taken[5][6] = taken[6][5] = 1;
            printf("OK\n");
            fflush(stdout);
        } else if (sscanf(line, "PLACE %d %d", &r, &c) == 2) {
            taken[r][c] = 1;
        } else if (strncmp(line, "TURN", 4) == 0) {
            if (moves++ == 2) {
                volatile int *nowhere = NULL;
                *nowhere = 42; /* SIGSEGV */
            }
            for (r = 0; r < 12; r++)
                for (c = 0; c < 12; c++)
                    if (!taken[r][c])
                        goto found;
        found:
            taken[r][c] = 1;
            printf("%d %d\n", r, c);
            fflush(stdout);
        } else if (strncmp(line, "END", 3) == 0) {
            return 0;
        }
    }
    return 0;
}
