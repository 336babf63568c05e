/* Convolution test program: array parameters walked by column.  A C99 variable-length parameter
 * (double a[n][n]) and one whose declarator a macro writes, as PolyBench's POLYBENCH_2D(A, N, N, n, n)
 * does; their rows were of unknown length (a far-apart placeholder) before their extents were read.
 * argv: n, reps.  Prints a checksum on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define PAD 0
#define ARRAY_2D(var, d1, d2) var[d1 + PAD][d2 + PAD]
#define M 48

static void vla_columns(int n, double a[n][n], double *sums)
{
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            sums[j] += a[i][j];
}

static void macro_columns(double ARRAY_2D(b, M, M), double *sums)
{
    for (int j = 0; j < M; j++)
        for (int i = 0; i < M; i++)
            sums[j] += b[i][j];
}

int main(int argc, char **argv)
{
    int rank, n = argc > 1 ? atoi(argv[1]) : 64, reps = argc > 2 ? atoi(argv[2]) : 2;
    double mine = 0.0, total = 0.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    double (*a)[n] = malloc(sizeof(double) * (size_t)n * (size_t)n);
    double (*b)[M + PAD] = malloc(sizeof(double) * M * M);
    double *sums = calloc((size_t)(n > M ? n : M), sizeof(double));
    if (!a || !b || !sums)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            a[i][j] = (i + j) % 7;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < M; j++)
            b[i][j] = (i * j) % 5;
    for (int r = 0; r < reps; r++) {
        vla_columns(n, a, sums);
        macro_columns(b, sums);
    }
    for (int j = 0; j < n; j++)
        mine += sums[j];
    MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("checksum %.6e\n", total);
    free(a);
    free(b);
    free(sums);
    MPI_Finalize();
    return 0;
}
