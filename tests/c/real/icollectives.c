/* Non-blocking collectives completed by MPI_Wait / MPI_Waitall (pogmat/ljmd broadcasts its
 * positions with MPI_Ibcast every step, src/mpi/mpi_comm/mpi_comm.c:13-19): they were not
 * counted ("MPI_Ibcast is not counted"), the program modelled as sending nothing.
 * Usage: icollectives n */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100, rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *x = calloc(n, sizeof(double)), *all = calloc((size_t)n * size, sizeof(double)), s = 0, t = 0, u = 0;
    for (int step = 0; step < 10; step++) {
        MPI_Request r[4];
        if (rank == 0) for (int i = 0; i < n; i++) x[i] = i + step;
        MPI_Ibcast(x, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &r[0]);
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++) s += x[i];
        MPI_Iallreduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[1]);
        MPI_Iallgather(x, n, MPI_DOUBLE, all, n, MPI_DOUBLE, MPI_COMM_WORLD, &r[2]);
        MPI_Ibarrier(MPI_COMM_WORLD, &r[3]);
        MPI_Waitall(3, r + 1, MPI_STATUSES_IGNORE);
        u += t + all[n * size - 1];
    }
    if (rank == 0) printf("%g %g\n", s, u);
    free(x); free(all);
    MPI_Finalize();
    return 0;
}
