/* dodger: a lowest-unique-bid bot in C for kothkit's lowbid game.
 *
 * Usage: ./bot SEED.  One judge line in, one line out, until END or end of input:
 *   BID ROUND ROUNDS MAX_BID SEAT B0 B1 ... Bn-1   ->  a bid from 1 to MAX_BID
 * It expects the others to bid what they bid last round, so it bids the lowest number none of
 * them bid then; one time in four (drawn from the seed) the next such number instead, so that two
 * dodgers do not collide for ever.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SEATS 64
#define MAX_BIDS 1000

static unsigned long long rng_state = 88172645463325252ULL;

static unsigned rnd(void) { /* xorshift64*: small, seeded, reproducible */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (unsigned)((rng_state * 2685821657736338717ULL) >> 33);
}

int main(int argc, char **argv) {
    static char line[65536];
    if (argc > 1) rng_state ^= strtoull(argv[1], NULL, 10) * 0x9E3779B97F4A7C15ULL;
    if (!rng_state) rng_state = 1;
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "END", 3) == 0) break;
        if (strncmp(line, "BID ", 4) != 0) continue;
        int round, rounds, max_bid, seat, used, n = 0;
        char *p = line + 4;
        if (sscanf(p, "%d %d %d %d%n", &round, &rounds, &max_bid, &seat, &used) != 4) continue;
        if (max_bid < 1) max_bid = 1;
        if (max_bid > MAX_BIDS) max_bid = MAX_BIDS;
        static char taken[MAX_BIDS + 2];
        memset(taken, 0, sizeof taken);
        p += used;
        int bid, k;
        while (n < MAX_SEATS && sscanf(p, "%d%n", &bid, &k) == 1) {
            if (n != seat && bid >= 1 && bid <= max_bid) taken[bid] = 1;
            p += k;
            n++;
        }
        int first = 0, second = 0;
        for (int b = 1; b <= max_bid && !second; b++) {
            if (taken[b]) continue;
            if (!first) first = b; else second = b;
        }
        int choice = first ? first : 1 + (int)(rnd() % (unsigned)max_bid);
        if (second && rnd() % 4 == 0) choice = second;
        printf("%d\n", choice);
        fflush(stdout);
    }
    return 0;
}
