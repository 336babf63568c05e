/* Convolution test program: the STREAM triad a[i] = b[i] + s * c[i] over n doubles per process,
 * repeated `reps` times (unit stride; the arrays are reused only when the sweep runs again).
 * argv: n (elements per process), reps.  Prints a checksum on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void triad(double *a, const double *b, const double *c, double s, int n)
{
    int i;
    for (i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
}

int main(int argc, char **argv)
{
    int n, reps, r, i, rank;
    double *a, *b, *c, sum = 0.0, total = 0.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    n = argc > 1 ? atoi(argv[1]) : 1000;
    reps = argc > 2 ? atoi(argv[2]) : 10;
    a = malloc((size_t)n * sizeof(double));
    b = malloc((size_t)n * sizeof(double));
    c = malloc((size_t)n * sizeof(double));
    if (!a || !b || !c)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (i = 0; i < n; i++) {
        b[i] = i % 7;
        c[i] = i % 5;
    }
    for (r = 0; r < reps; r++)
        triad(a, b, c, 0.5 + r, n);
    for (i = 0; i < n; i++)
        sum += a[i];
    MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("checksum %.6e\n", total);
    free(a);
    free(b);
    free(c);
    MPI_Finalize();
    return 0;
}
