/* Before an optimisation: two passes over the array (scale, then sum), and a reduction per step. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, n = argc > 1 ? atoi(argv[1]) : 1000, steps = argc > 2 ? atoi(argv[2]) : 4;
    double local = 0.0, total = 0.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int mine = n / size;
    double *a = malloc(sizeof(double) * (size_t)mine);
    for (int i = 0; i < mine; i++) a[i] = rank + i;
    for (int s = 0; s < steps; s++) {
        for (int i = 0; i < mine; i++) a[i] = 0.5 * a[i];
        for (int i = 0; i < mine; i++) local += a[i];
        MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    if (rank == 0) printf("%.6e\n", total);
    free(a);
    MPI_Finalize();
    return 0;
}
