/* A convergence loop with a cap (mpi-kmeans' for (iter = 0; iter < max_iterations; iter++) { ...
 * if (converged) break; }): its iterations are data, fitted here as c log2(n), and the fit ran past
 * the header's 20 at 8x (21.1 sweeps: ops +5.3 %; kmeans 59.9 of 50).  Usage: capped N */
#include <stdio.h>
#include <stdlib.h>
#define MAXIT 20
int main(int argc, char **argv)
{
    int n = atoi(argv[1]), it;
    double *a = malloc(n * sizeof *a), err = n, s = 0;
    for (int i = 0; i < n; i++) a[i] = i;
    for (it = 0; it < MAXIT; it++) {
        for (int i = 0; i < n; i++)
            s += a[i] * 1e-9;
        err = err / 2;                 /* "converges" after log2(n) sweeps */
        if (err < 1.0)
            break;
    }
    printf("%d %g\n", it, s);
    return 0;
}
