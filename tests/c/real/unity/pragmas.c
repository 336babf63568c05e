/* OpenMP pragmas written by macros (HPGMG-FV: `#define MyPragma(a) _Pragma(#a)` and
   `PRAGMA_THREAD_ACROSS_BLOCKS(level, b, nb)` before the loops of the .c files it includes).
   The loop's braces and hooks went between the macro, which expands to `#pragma omp parallel for`,
   and its `for`: "for statement expected".  They go before the macro now.  Usage: pragmas N */
#include <stdio.h>
#include <stdlib.h>
#define MyPragma(a) _Pragma(#a)
#define PARALLEL_FOR(n) MyPragma(omp parallel for if (n > 1) schedule(static))
#define PARALLEL_SUM(s) MyPragma(omp parallel for reduction(+ : s))
#include "kernels/team.c"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 64;
    double *x = malloc((size_t)n * sizeof *x);
    fill(x, n);
    printf("%.3f\n", sum(x, n));
    free(x);
    return 0;
}
