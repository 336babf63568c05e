/* A data-dependent test whose true share grows with the size (HPGMG-FV's boundary conditions,
 * issue 19): the first n * n / 400 cells (at most n) are marked, and every step tests the n cells.
 * Fitted from n = 40 and 80 (4 and 16 marked), the marked cells' executions grow as n^2 while the
 * tests grow as n: beyond n = 400 the else block ran a negative number of times, and perfeq
 * predict refused the model ("a count is a finite number >= 0"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 40;
    int marked = n * n / 400;
    if (marked > n)
        marked = n;
    char *flag = calloc((size_t)n, 1);
    memset(flag, 1, (size_t)marked);
    double sum = 0.0;
    long hits = 0;
    for (int step = 0; step < 10; step++)
        for (int i = 0; i < n; i++) {
            if (flag[i]) {
                sum += 0.5 * i;
                hits++;
            } else {
                sum -= 1.0;
            }
        }
    printf("%ld %.1f\n", hits, sum);
    free(flag);
    return 0;
}
