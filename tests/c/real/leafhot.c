/* Small leaf functions called per pair in a hot loop, their loops bounded by their parameters:
 * ljmd's pbc(x, boxby2) (force.c:11, two while loops) made the instrumented run 3.7x slower, two
 * of its hooks recording the loops' bounds at every call.  Values of a leaf's parameters alone
 * resolve through each call's arguments: they are no longer recorded there.
 * Usage: leafhot n */
#include <stdio.h>
#include <stdlib.h>

static double pbc(double x, const double half)
{
    while (x > half)
        x -= 2.0 * half;
    while (x < -half)
        x += 2.0 * half;
    return x;
}

static double dot(const double *a, const double *b, int m)
{
    double s = 0;
    for (int k = 0; k < m; k++)
        s += a[k] * b[k];
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100;
    double *r = malloc(3 * n * sizeof(double)), box = 10.0, e = 0;
    for (int i = 0; i < 3 * n; i++)
        r[i] = (i % 7) * 0.5 - 1.5;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double d = pbc(r[3 * i] - r[3 * j], 0.5 * box);
            e += d * d + dot(r + 3 * i, r + 3 * j, 3);
        }
    e += dot(r, r, 3 * n);
    printf("%.6f\n", e);
    free(r);
    return 0;
}
