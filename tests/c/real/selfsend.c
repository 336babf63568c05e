/* A send to oneself handled locally (graph500's aml_send: if (node == me) handler(); else send):
 * a one-process run never sends, so a model built on its contexts dropped the send.  The owner of
 * item i is (7 i + rank) % P.  argv: n */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
static int me, P;
static long local_sum;
static void handler(int v) { local_sum += v; }
static void send_item(int v, int node)
{
    if (node == me) {
        handler(v);
        return;
    }
    MPI_Send(&v, 1, MPI_INT, node, 0, MPI_COMM_WORLD);
}
int main(int argc, char **argv)
{
    int n = atoi(argv[1]), v;
    long expect = 0, total = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    for (int i = 0; i < n; i++)
        send_item(i, (i * 7 + me) % P);
    for (int i = 0; i < n; i++)
        if ((i * 7 + me) % P != me)
            expect++;
    for (long i = 0; i < expect; i++) {
        MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        handler(v);
    }
    MPI_Reduce(&local_sum, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("sum %ld\n", total);
    MPI_Finalize();
    return 0;
}
