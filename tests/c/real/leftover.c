/* A block decomposition that gives the first n % P ranks one element more (ParRes Kernels'
   Stencil and DGEMM, miniAMR's face loops): the first index and the count are set in both branches
   of an if on the rank.  The resolver refused any variable assigned under a condition, so the loops
   over a rank's elements were fitted (floor(n/P): 1 % off where n % P != 0); now the value is
   Piecewise((then, rank < leftover), (else, True)).  Usage: leftover N */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, size, n, first, count;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    n = argc > 1 ? atoi(argv[1]) : 101;
    int base = n / size;
    int leftover = n % size;
    if (rank < leftover) {
        first = rank * (base + 1);
        count = base + 1;
    }
    else {
        first = leftover * (base + 1) + (rank - leftover) * base;
        count = base;
    }
    double local = 0.0, total = 0.0;
    for (int step = 0; step < 3; step++)
        for (int i = first; i < first + count; i++)
            local += 1.0 / (1.0 + i);
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("total %.12f\n", total);
    MPI_Finalize();
    return 0;
}
