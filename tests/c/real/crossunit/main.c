/* Calls straight-line functions of another file in loops, in a loop header and in arguments. */
#include <stdio.h>
#include <stdlib.h>
#include "util.h"

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10;
    double *a = malloc((size_t)(n * n) * sizeof *a);
    unsigned long seed = 42;
    double s = 0.0;
    long i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            a[idx(i, j, n)] = scale(lcg(&seed));
    for (i = 0; i < idx(1, 0, n); i++)
        s += a[i] * lcg(&seed);
    for (i = 0; i < n; i++)
        s += scale(a[idx(i, 0, n)]) * scale((double)idx(i, i, n));
    printf("%.6f\n", s);
    free(a);
    return 0;
}
