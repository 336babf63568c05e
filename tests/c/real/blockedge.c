/* A boundary test on the variables of blocked loops (KASTORS jacobi poisson-for.c: `if (ii == 0 ||
   ii == n - 1 || jj == 0 || jj == n - 1)` with ii in [i, i + b), jj in [j, j + b)): the condition's
   count is not summed symbolically, and the runs' true ratios fall as 1/n (0.1211, 0.0615, 0.0310 at
   n = 32, 64, 128); the first run's was kept at every size (loads +2980 % at n = 1024).  Now the
   then block's executions per call, 4n - 4, are fitted over the runs.  Usage: blockedge N (a
   multiple of 16) */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = atoi(argv[1]), b = 16, i, j;
    double *u = malloc((size_t)n * n * sizeof *u), *f = malloc((size_t)n * n * sizeof *f), s = 0;
    for (i = 0; i < n * n; i++)
        f[i] = i;
    for (j = 0; j < n; j += b)
        for (i = 0; i < n; i += b)
            for (int jj = j; jj < j + b; ++jj)
                for (int ii = i; ii < i + b; ++ii)
                    if (ii == 0 || ii == n - 1 || jj == 0 || jj == n - 1)
                        u[(size_t)ii * n + jj] = f[(size_t)ii * n + jj];
                    else
                        u[(size_t)ii * n + jj] = 0.0;
    for (i = 0; i < n * n; i++)
        s += u[i];
    printf("%g\n", s);
    free(u);
    free(f);
    return 0;
}
