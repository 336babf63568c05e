/* A recursive search (BOTS nqueens): recursion is measured, folded into one context per call site,
 * and said in the model as not modelled, with the call whose count is the first run's. */
#include <stdio.h>
#include <stdlib.h>

static int ok(const int *q, int r, int c)
{
    for (int i = 0; i < r; i++)
        if (q[i] == c || abs(q[i] - c) == r - i)
            return 0;
    return 1;
}

static long solve(int *q, int r, int n)
{
    if (r == n)
        return 1;
    long s = 0;
    for (int c = 0; c < n; c++) {
        if (ok(q, r, c)) {
            q[r] = c;
            s += solve(q, r + 1, n);
        }
    }
    return s;
}

int never_called(int lo, int hi) /* recursive, dead code (Rodinia particlefilter's findIndexBin): not named */
{
    return hi <= lo ? lo : never_called(lo, (lo + hi) / 2);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 8;
    int *q = malloc(n * sizeof *q);
    printf("%d queens: %ld\n", n, solve(q, 0, n));
    free(q);
    return 0;
}
