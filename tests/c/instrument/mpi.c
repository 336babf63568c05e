/* mpi.c -- MPI point-to-point and collectives: Send/Recv in a ring, Bcast, Allreduce
 * (perfeq instrumenter test corpus; run with 2 processes). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define TAG 7

int main(int argc, char **argv)
{
    int rank, size, n = 8, i, step;
    double *buf, local = 0.0, global = 0.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1)
        n = atoi(argv[1]);
    buf = malloc(n * sizeof(double));
    if (rank == 0)
        for (i = 0; i < n; i++)
            buf[i] = i;
    MPI_Bcast(buf, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (step = 0; step < 3; step++) {
        int next = (rank + 1) % size, prev = (rank + size - 1) % size;
        if (size > 1) {
            if (rank % 2 == 0) {
                MPI_Send(buf, n, MPI_DOUBLE, next, TAG, MPI_COMM_WORLD);
                MPI_Recv(buf, n, MPI_DOUBLE, prev, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, n, MPI_DOUBLE, prev, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, n, MPI_DOUBLE, next, TAG, MPI_COMM_WORLD);
            }
        }
        for (i = 0; i < n; i++)
            local += buf[i] * (rank + 1);
    }
    MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("n %d size %d global %.1f\n", n, size, global);
    free(buf);
    MPI_Finalize();
    return 0;
}
