/* Messages polled for in main (issue 19, found by review of the polling change): each process posts
 * n sends of 1-4 ints to the next one, then receives n in main's own loop (MPI_Iprobe; if a message
 * is there, receive it and handle it) and waits for its sends.  The if on the probe's flag runs once
 * per message, its evaluations (the polls) are timing and none are made on one process (under
 * `if (size > 1)`): its ratio, the messages over the polls, divided by a count that is 0 there, and
 * `perfeq model` stopped with an internal error (Invalid NaN comparison). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double total;

static void handle(const int *msg, int len)
{
    for (int i = 0; i < len; i++)
        total += 0.5 * msg[i];
}

int main(int argc, char **argv)
{
    int rank, size, received = 0, n = argc > 1 ? atoi(argv[1]) : 100;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1) {
        int *out = malloc(4 * (size_t)n * sizeof(int));
        MPI_Request *requests = malloc((size_t)n * sizeof(MPI_Request));
        for (int m = 0; m < n; m++) {
            int len = 1 + m % 4;
            for (int i = 0; i < len; i++)
                out[4 * m + i] = m + i;
            MPI_Isend(out + 4 * m, len, MPI_INT, (rank + 1) % size, 1, MPI_COMM_WORLD, &requests[m]);
        }
        while (received < n) {
            int flag = 0, len = 0, msg[4];
            MPI_Status status;
            MPI_Iprobe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &flag, &status);
            if (flag) {
                MPI_Get_count(&status, MPI_INT, &len);
                MPI_Recv(msg, len, MPI_INT, status.MPI_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                handle(msg, len);
                received++;
            }
        }
        MPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
        free(requests);
        free(out);
    }
    double sum = 0.0;
    MPI_Reduce(&total, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d messages, %.1f\n", received, sum);
    MPI_Finalize();
    return 0;
}
