/* tests/c/real/recdescent.c: a recursive descent of depth log2 n per element (Barnes-Hut's force
 * walk over its tree, rafrodvel/Barnes-Hut-simulation galsim.c:130-153), called from a parallel
 * loop.  The runtime folds the recursive calls into one context; their number per call of the
 * loop's site was the first run's (13 at n = 4096), so the model missed its own n = 8192 runs by
 * -7 % and a run at 8x by -18.8 %; fitted over the runs it is log2 n + 1.  usage: recdescent n steps */
#include <stdio.h>
#include <stdlib.h>

static double descend(const double *a, int lo, int hi, double x)
{
    if (hi - lo <= 1)
        return a[lo] * x;
    int mid = lo + (hi - lo) / 2;
    double w = 1e-3 * (a[mid] - x);
    if (x < a[mid])
        return w + descend(a, lo, mid, x);
    return w + descend(a, mid, hi, x);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    int steps = argc > 2 ? atoi(argv[2]) : 20;
    double *a = malloc(n * sizeof(double));
    double *f = malloc(n * sizeof(double));
    double sum = 0;
    for (int i = 0; i < n; i++)
        a[i] = (double)i / n;
    for (int s = 0; s < steps; s++) {
#pragma omp parallel for
        for (int i = 0; i < n; i++)
            f[i] = descend(a, 0, n, (i * 7919 % n) / (double)n);
    }
    for (int i = 0; i < n; i++)
        sum += f[i];
    printf("sum %.6f\n", sum);
    free(a);
    free(f);
    return 0;
}
