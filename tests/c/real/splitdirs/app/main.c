/* A program whose helpers live in sibling folders (ParRes Kernels' common/ and include/):
   main.c here, sweep() in ../common/kernels.c declared in ../include/kernels.h (through -I),
   check_all() in ../common/checks.c declared in ../common/checks.h, included by a relative path.
   Usage: main N (N values per rank, 4 sweeps, a check after each). */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include "kernels.h"
#include "../common/checks.h"

int main(int argc, char **argv)
{
    int rank, size, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    n = argc > 1 ? atoi(argv[1]) : 100;
    int local = n / size;
    double *x = malloc(sizeof(double) * (size_t)local);
    for (int i = 0; i < local; i++)
        x[i] = rank + 0.5 * i;
    double total = 0.0;
    for (int step = 0; step < 4; step++) {
        total += sweep(x, local);
        if (check_all(total < 0.0))
            break;
    }
    double all = 0.0;
    MPI_Reduce(&total, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("sum %.6e\n", all);
    free(x);
    MPI_Finalize();
    return 0;
}
