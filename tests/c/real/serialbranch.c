/* A separate serial code path: `if (numprocs == 1) serial(); else parallel();` (as
 * omarmalik710/conjugate-gradient's cg.c:52 runs apply_stencil_serial on one process).  The
 * model was built on one run's call tree, the run with the most contexts; a function only the
 * one-process runs call was not in it: -100 % on its own P = 1 runs when trained on P = 1 and 2.
 * Usage: serialbranch n */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void serial_apply(int n, const double *d, double *q)
{
    for (int i = 1; i < n - 1; ++i)
        for (int j = 1; j < n - 1; ++j)
            q[i * n + j] = 4 * d[i * n + j] - d[(i - 1) * n + j] - d[(i + 1) * n + j];
}

static double parallel_apply(int m, const double *d, double *q, MPI_Comm comm)
{
    double s = 0, t;
    for (int i = 0; i < m; ++i) {
        q[i] = 2 * d[i];
        s += q[i];
    }
    MPI_Allreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, comm);
    return t;
}

int main(int argc, char **argv)
{
    int numprocs, rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &numprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = argc > 1 ? atoi(argv[1]) : 16, m = n * n / numprocs;
    double *d = calloc((size_t)n * n, sizeof(double)), *q = calloc((size_t)n * n, sizeof(double));
    double t = 0;
    for (int i = 0; i < n * n; i++)
        d[i] = i % 7;
    if (numprocs == 1) {
        for (int it = 0; it < 20; it++)
            serial_apply(n, d, q);
    } else {
        for (int it = 0; it < 20; it++)
            t += parallel_apply(m, d, q, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("%g %g\n", q[n + 1], t);
    free(d);
    free(q);
    MPI_Finalize();
    return 0;
}
