/* whilecap: a convergence loop written as a while, its counter stepped as the body's last
 * statement, after the test that leaves it (keatina3/2d-poisson-MPI_Cart-solve, jacobi.c:39-57:
 * `while (count < MAX_ITERS) { ...; if (glob_diff < ERR) break; count++; }`).  perfeq took the
 * counter for a variable the body modifies and fitted the sweeps without the header's bound:
 * c n log n, +155 % at n = 256 where the solve stops at MAX_ITERS (the program: ops +396 % at 8x).
 * Usage: whilecap N */
#include <stdio.h>
#include <stdlib.h>
#define MAX_ITERS 2000
#define ERR 1.0E-07

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 16, i, count = 0;
    double *u = calloc(n + 2, sizeof(double)), *v = calloc(n + 2, sizeof(double));
    double diff;
    u[n + 1] = v[n + 1] = 1.0;
    while (count < MAX_ITERS) {
        for (i = 1; i <= n; i++)
            v[i] = 0.5 * (u[i - 1] + u[i + 1]);
        for (i = 1; i <= n; i++)
            u[i] = 0.5 * (v[i - 1] + v[i + 1]);
        diff = 0.0;
        for (i = 1; i <= n; i++)
            diff += (u[i] - v[i]) * (u[i] - v[i]);
        if (diff < ERR) {
            printf("converged, count: %d\n", count);
            break;
        }
        count++;
    }
    printf("n = %d iterations %d u[n/2] = %f\n", n, count, u[n / 2]);
    free(u);
    free(v);
    return 0;
}
