/* Convolution test program: column sums of a row-major n x n matrix (the innermost loop walks a
 * column: a stride of n doubles) and a 5-point stencil over its rows (unit stride; the rows above
 * and below are reused one row sweep later).  argv: n, reps.  Prints a checksum on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void column_sums(const double *m, double *sums, int n)
{
    int i, j;
    for (j = 0; j < n; j++) {
        double s = 0.0;
        for (i = 0; i < n; i++)
            s += m[(size_t)i * n + j];
        sums[j] = s;
    }
}

static void stencil(const double *m, double *out, int n)
{
    int i, j;
    for (i = 1; i < n - 1; i++)
        for (j = 1; j < n - 1; j++)
            out[i * n + j] = 0.25 * (m[(i - 1) * n + j] + m[(i + 1) * n + j] + m[i * n + j - 1] + m[i * n + j + 1]);
}

int main(int argc, char **argv)
{
    int n, reps, r, i, rank;
    double *m, *out, *sums, total = 0.0, mine = 0.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    n = argc > 1 ? atoi(argv[1]) : 100;
    reps = argc > 2 ? atoi(argv[2]) : 2;
    m = malloc((size_t)n * n * sizeof(double));
    out = calloc((size_t)n * n, sizeof(double));
    sums = malloc((size_t)n * sizeof(double));
    if (!m || !out || !sums)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (i = 0; i < n * n; i++)
        m[i] = i % 11;
    for (r = 0; r < reps; r++) {
        column_sums(m, sums, n);
        stencil(m, out, n);
    }
    for (i = 0; i < n; i++)
        mine += sums[i] + out[n + i];
    MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("checksum %.6e\n", total);
    free(m);
    free(out);
    free(sums);
    MPI_Finalize();
    return 0;
}
