/* A data-dependent branch taken on one rank's share only: the first quarter of the values is large,
 * and they all lie on rank 0 at P = 2.  The model takes the ratio over all ranks (the paper's
 * assumption), so its totals are exact while the slowest rank's work is not; `perfeq counts MODEL
 * --trace RUN` compared totals only and showed no difference (mpi_mm's 63 rows modelled, 64 run).
 * Usage: skewed N */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int me, p, i;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    int local = n / p;
    double *v = malloc(local * sizeof(double)), s = 0, total = 0;
    for (i = 0; i < local; i++)
        v[i] = (me * local + i < n / 4) ? 2.0 + i : 0.5;
    for (i = 0; i < local; i++)
        if (v[i] > 1.0)
            s += v[i] * v[i] / (1.0 + v[i]);
    MPI_Reduce(&s, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("%.6g\n", total);
    free(v);
    MPI_Finalize();
    return 0;
}
