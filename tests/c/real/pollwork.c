/* Messages handled wherever the receiver happens to poll (graph500's aml layer, issue 19): each
 * process sends n messages of 1-4 ints to the next one, and while each of its sends goes it polls
 * (MPI_Iprobe; if a message is there, receive it and handle it); what is left is received after the
 * sends.  How many messages a process handles in all is n, but how many it finds while sending
 * and how many after is timing, so the two contexts of poll() (from send_one and from main), each
 * fitted on its own, did not add up to n at other sizes.  On one process nothing is sent. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int received;
static double total;

static void handle(const int *msg, int len)
{
    for (int i = 0; i < len; i++)
        total += 0.5 * msg[i];
}

static void poll(void)
{
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

static void send_one(int *msg, int len, int to)
{
    MPI_Request request;
    int done = 0;
    MPI_Isend(msg, len, MPI_INT, to, 1, MPI_COMM_WORLD, &request);
    while (!done) {
        MPI_Test(&request, &done, MPI_STATUS_IGNORE);
        poll();
    }
}

int main(int argc, char **argv)
{
    int rank, size, n = argc > 1 ? atoi(argv[1]) : 100;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1) {
        int msg[4];
        for (int m = 0; m < n; m++) {
            int len = 1 + m % 4;
            for (int i = 0; i < len; i++)
                msg[i] = m + i;
            send_one(msg, len, (rank + 1) % size);
        }
        while (received < n)
            poll();
    }
    double sum = 0.0;
    MPI_Reduce(&total, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d messages, %.1f\n", received, sum);
    MPI_Finalize();
    return 0;
}
