/* Combined `omp parallel for` loops in serial code (STREAM's kernels, a 2-D sweep): their iterations
 * are counted once before the construct from the bounds, for the whole team, with no counter and no
 * lookup of the thread's counters in a straight-line body (STREAM ran 2.5x slower instrumented).
 * A body with a loop inside still counts that loop per thread; a reduction and a schedule clause. */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    long j;
    double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n), *c = malloc(sizeof(double) * n);
    double sum = 0.0;
#pragma omp parallel for
    for (j = 0; j < n; j++) {
        a[j] = 1.0;
        b[j] = 2.0 + j % 3;
        c[j] = 0.5;
    }
    for (int rep = 0; rep < 3; rep++) {
#pragma omp parallel for schedule(static)
        for (j = 0; j < n; j++)
            a[j] = b[j] + 3.0 * c[j];
#pragma omp parallel for reduction(+ : sum)
        for (long i = 1; i <= n / 10; i++)
            for (long k = 0; k < 10; k++)
                sum += a[(i - 1) * 10 + k];
    }
    printf("%.3f %.3f\n", sum, a[n / 2]);
    free(a);
    free(b);
    free(c);
    return 0;
}
