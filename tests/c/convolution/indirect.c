/* Convolution test program: a gather y[i] += x[perm[i]] through a random permutation (indirect
 * access) and a loop-invariant load of a coefficient.  argv: n, reps.  Prints a checksum on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void gather(double *y, const double *x, const int *perm, const double *coef, int n)
{
    int i;
    for (i = 0; i < n; i++)
        y[i] += coef[0] * x[perm[i]];
}

int main(int argc, char **argv)
{
    int n, reps, r, i, rank;
    int *perm;
    double *x, *y, coef[1] = {0.5}, mine = 0.0, total = 0.0;
    unsigned seed = 12345u;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    n = argc > 1 ? atoi(argv[1]) : 1000;
    reps = argc > 2 ? atoi(argv[2]) : 2;
    perm = malloc((size_t)n * sizeof(int));
    x = malloc((size_t)n * sizeof(double));
    y = calloc((size_t)n, sizeof(double));
    if (!perm || !x || !y)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (i = 0; i < n; i++) {
        perm[i] = i;
        x[i] = i % 3;
    }
    for (i = n - 1; i > 0; i--) { /* Fisher-Yates with a fixed LCG: the same permutation everywhere */
        int k, t;
        seed = seed * 1103515245u + 12345u;
        k = (int)(seed % (unsigned)(i + 1));
        t = perm[i];
        perm[i] = perm[k];
        perm[k] = t;
    }
    for (r = 0; r < reps; r++)
        gather(y, x, perm, coef, n);
    for (i = 0; i < n; i++)
        mine += y[i];
    MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("checksum %.6e\n", total);
    free(perm);
    free(x);
    free(y);
    MPI_Finalize();
    return 0;
}
