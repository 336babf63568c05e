/* A data test that never holds on one process (graph500's polling, issue 19: `if (flag)` after
 * MPI_Testany finds no message when a rank is alone): items owned by another rank are marked, none
 * on one process and n * n / 400 of the n items (at most n) on more, and each marked item is
 * exchanged with the neighbours.  Its true ratio is 0 on one process and grows with n on two, so no
 * one ratio and no a + b / P holds: the first run's was kept, 0 (no messages on two processes) or
 * one from two processes (messages on one). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, n = argc > 1 ? atoi(argv[1]) : 40;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int marked = n * n / 400;
    if (marked > n)
        marked = n;
    char *remote = calloc((size_t)n, 1);
    if (size > 1)
        memset(remote, 1, (size_t)marked);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double local = 0.0, total = 0.0;
    for (int step = 0; step < 10; step++)
        for (int i = 0; i < n; i++) {
            if (remote[i]) {
                double out = 0.5 * i + rank, in = 0.0;
                MPI_Sendrecv(&out, 1, MPI_DOUBLE, right, 0, &in, 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
                local += in;
            } else {
                local += 1.0;
            }
        }
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%.1f\n", total);
    free(remote);
    MPI_Finalize();
    return 0;
}
