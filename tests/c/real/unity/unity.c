/* A unity build (HPGMG-FV's operators.fv4.c: `#include "operators/gsrb.c"` and a dozen more):
   the kernels are .c files the main file includes, with includes of their own relative to their
   folder.  Before, only unity.c's own text was instrumented: the kernels' loops, nearly all the
   work, were missing from the model (HPGMG-FV: 5,287 flops counted for a multigrid solve, its
   time predicted -96 %), and nothing said so.  A kernel included in a branch of nothing but
   directives (HPGMG-FV's gsrb.c under #ifdef USE_GSRB) was still left out.  Usage: unity N */
#include <stdio.h>
#include <stdlib.h>
#include "kernels/axpy.c"
#define USE_RELAX 1
#ifdef USE_RELAX
#define RELAX_SWEEPS 2
#include "kernels/relax.c"
#else
#include "kernels/missing.c"
#endif

static double total(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i];
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100;
    double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
    for (int i = 0; i < n; i++) {
        x[i] = i % 7;
        y[i] = 1.0;
    }
    for (int step = 0; step < 10; step++)
        smooth(y, x, n);
    relax(y, n);
    printf("%.3f\n", total(y, n));
    free(x);
    free(y);
    return 0;
}
