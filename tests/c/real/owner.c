/* Items sent to their owner, a hash of the item modulo P (Graph500's aml_send, issue 19): the
 * handler runs locally when the owner is this rank, else the item goes into a buffer for its owner,
 * flushed with a message when full.  The share handled locally is 1/P: on one process the buffering
 * function is never called, on two half the items go there, on four three quarters.  Run: owner n */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define BUF 64
static int rank, size, *fill, *sent_to;
static long *buf, handled;

static void handle(long item) { handled += item & 7; }

static void flush(int to)
{
    MPI_Send(buf + (size_t)to * BUF, fill[to], MPI_LONG, to, 0, MPI_COMM_WORLD);
    sent_to[to]++;
    fill[to] = 0;
}

static void buffer_item(long item, int to)
{
    if (fill[to] == BUF)
        flush(to);
    buf[(size_t)to * BUF + fill[to]++] = item;
}

static void send_item(long item, int owner)
{
    if (owner == rank) {
        handle(item);
        return;
    }
    buffer_item(item, owner);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000, i, total, in[BUF];
    int from, k, got, *recv_from;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    fill = calloc((size_t)size, sizeof *fill);
    sent_to = calloc((size_t)size, sizeof *sent_to);
    recv_from = calloc((size_t)size, sizeof *recv_from);
    buf = malloc((size_t)size * BUF * sizeof *buf);
    for (i = 0; i < n; i++) {
        unsigned long h = (unsigned long)(i + rank * n) * 2654435761u;
        send_item(i, (int)((h >> 7) % (unsigned long)size));
    }
    for (k = 0; k < size; k++)
        if (fill[k] > 0)
            flush(k);
    MPI_Alltoall(sent_to, 1, MPI_INT, recv_from, 1, MPI_INT, MPI_COMM_WORLD);
    for (from = 0; from < size; from++)
        for (k = 0; k < recv_from[from]; k++) {
            MPI_Recv(in, BUF, MPI_LONG, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (got = 0; got < BUF; got++)
                handled += in[got] & 7;
        }
    MPI_Reduce(&handled, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%ld\n", total);
    free(fill); free(sent_to); free(recv_from); free(buf);
    MPI_Finalize();
    return 0;
}
