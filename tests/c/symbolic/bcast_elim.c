/* Gaussian-elimination-style broadcasts: n elimination steps, each broadcasting the pivot row
 * (n - k doubles) from its owner (rows dealt cyclically: row k lives on rank k % P) with MPI_Bcast,
 * a binomial tree in MPICH; then every rank updates its own rows below the pivot.  The critical
 * path has ceil(log2 P) messages per step, whichever rank is the root.
 *
 * usage: bcast_elim n
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, n, k, i, j, mine;
    double *a, *pivot, check = 0.0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    n = argc > 1 ? atoi(argv[1]) : 16;
    mine = (n - rank + size - 1) / size; /* rows rank, rank + size, ... */
    a = malloc((size_t)(mine > 0 ? mine : 1) * n * sizeof(double));
    pivot = malloc((size_t)n * sizeof(double));
    for (i = 0; i < mine; i++)
        for (j = 0; j < n; j++)
            a[i * n + j] = (rank + i * size == j) ? n + 1.0 : 1.0 / (1 + i + j);
    for (k = 0; k < n; k++) {
        int owner = k % size;
        if (rank == owner)
            for (j = k; j < n; j++)
                pivot[j - k] = a[(k / size) * n + j];
        MPI_Bcast(pivot, n - k, MPI_DOUBLE, owner, MPI_COMM_WORLD);
        for (i = 0; i < mine; i++) {
            if (rank + i * size > k) {
                double f = a[i * n + k] / pivot[0];
                for (j = k; j < n; j++)
                    a[i * n + j] -= f * pivot[j - k];
            }
        }
    }
    for (i = 0; i < mine; i++)
        check += a[i * n + rank + i * size];
    MPI_Allreduce(MPI_IN_PLACE, &check, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("trace of U: %.6f\n", check);
    free(a);
    free(pivot);
    MPI_Finalize();
    return 0;
}
