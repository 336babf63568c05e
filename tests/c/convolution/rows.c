/* Convolution test program: column sums of an n x n matrix held as a pointer to rows (double **),
 * whose row length the model does not know: the innermost loop's stride is a `row_` symbol on its
 * own (CoMD's real3 *r, a[i][m]), which the convolution once turned into a Python int and crashed
 * on.  argv: n, reps.  Prints a checksum on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double column_sums(double **m, int n)
{
    double total = 0.0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            total += m[i][j];
    return total;
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = argc > 1 ? atoi(argv[1]) : 100;
    int reps = argc > 2 ? atoi(argv[2]) : 2;
    double **m = malloc((size_t)n * sizeof(double *));
    for (int i = 0; i < n; i++) {
        m[i] = malloc((size_t)n * sizeof(double));
        for (int j = 0; j < n; j++)
            m[i][j] = i + 0.5 * j;
    }
    double total = 0.0;
    for (int r = 0; r < reps; r++)
        total += column_sums(m, n);
    if (rank == 0)
        printf("checksum %.6g\n", total);
    for (int i = 0; i < n; i++)
        free(m[i]);
    free(m);
    MPI_Finalize();
    return 0;
}
