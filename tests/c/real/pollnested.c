/* tests/c/real/pollnested.c: a window of sends and receives to the next rank, then a loop that polls
 * for both halves, each test nested under an if on its own flag and followed by a timer read when
 * it completes (LLNL/mpiGraph mpiGraph.c:189-201).  The loop is a wait: its iterations are timing,
 * its polls count nothing.  Before, only polls at the top of the body made a wait: the loop was
 * fitted as work (its model off its own runs by up to +550 % in cmp, ops -79 % at 8x), and one set
 * of traces in three stopped perfeq model with an internal error ('zoo' is not comparable: the
 * inner if's executions fitted, divided by evaluations the fitted loop no longer had).
 * usage: pollnested n times */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

double t_send, t_recv;

int main(int argc, char **argv)
{
    int rank, P, n, times, w, k;
    char *sbuf, *rbuf;
    double sum = 0;
    MPI_Request req[8];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    n = argc > 1 ? atoi(argv[1]) : 4096;
    times = argc > 2 ? atoi(argv[2]) : 20;
    sbuf = calloc(4 * (size_t)n, 1);
    rbuf = calloc(4 * (size_t)n, 1);
    int to = (rank + 1) % P, from = (rank - 1 + P) % P;
    for (int it = 0; it < times; it++) {
        k = -1;
        for (w = 0; w < 4; w++) {
            k++;
            MPI_Irecv(rbuf + w * n, n, MPI_BYTE, from, MPI_ANY_TAG, MPI_COMM_WORLD, &req[k]);
        }
        for (w = 0; w < 4; w++) {
            k++;
            MPI_Isend(sbuf + w * n, n, MPI_BYTE, to, w, MPI_COMM_WORLD, &req[k]);
        }
        double t0 = MPI_Wtime();
        int fs = 0, fr = 0;
        while (!fs || !fr) {
            if (!fs) {
                MPI_Testall((k + 1) / 2, &req[(k + 1) / 2], &fs, MPI_STATUSES_IGNORE);
                if (fs) {
                    t_send = MPI_Wtime();
                }
            }
            if (!fr) {
                MPI_Testall((k + 1) / 2, &req[0], &fr, MPI_STATUSES_IGNORE);
                if (fr) {
                    t_recv = MPI_Wtime();
                }
            }
        }
        sum += (t_send - t0) + (t_recv - t0);
    }
    if (rank == 0)
        printf("done n=%d times=%d (%s)\n", n, times, sum >= 0 ? "ok" : "?");
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
