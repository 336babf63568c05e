/* Loops that go on from where the loop before them left their variable: a remainder loop and
 * then the unrolled one continuing from it, `for (i; i < area; i += 4)` (as
 * omarmalik710/conjugate-gradient's cg.c:64-69), and the other way round, an unrolled loop and
 * a remainder loop with no initialisation, `for (; i < n; i++)`.  Their first value was not
 * known, so their trips were fitted to the size (+2.7 % ops at 8x).
 * Usage: forcontinue n */
#include <stdio.h>
#include <stdlib.h>
#define UNROLL 4

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 63;
    int area = (n + 1) * (n + 1);
    int rem = area % UNROLL, i;
    double *u = calloc(area, sizeof(double)), *d = malloc(area * sizeof(double)), s = 0;
    for (i = 0; i < area; i++)
        d[i] = i * 1e-3;
    for (int it = 0; it < 10; it++) {
        for (i = 0; i < rem; ++i)
            u[i] += 0.5 * d[i];
        for (i; i < area; i += UNROLL) {
            u[i] += 0.5 * d[i];
            u[i + 1] += 0.5 * d[i + 1];
            u[i + 2] += 0.5 * d[i + 2];
            u[i + 3] += 0.5 * d[i + 3];
        }
    }
    for (i = 0; i < n - 3; i += 4)
        s += d[i] + d[i + 1] + d[i + 2] + d[i + 3];
    for (; i < n; i++)
        s += 2 * d[i];
    printf("%g %g\n", u[area - 1], s);
    free(u);
    free(d);
    return 0;
}
