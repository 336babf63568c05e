/* A communicator passed to a function (the mpitutorial's my_bcast(data, count, comm) called with
 * MPI_COMM_WORLD): MPI_Comm_size(comm, &size) there is the process count, and the root's loop over
 * the other ranks sends P - 1 messages.  A sum over a communicator the program splits into pairs
 * of ranks (MPI_Comm_split(MPI_COMM_WORLD, rank / 2, ...)) passed the same way: size 2 there. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void my_bcast(double *data, int count, MPI_Comm comm)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (rank == 0) {
        for (int i = 1; i < size; i++)
            MPI_Send(data, count, MPI_DOUBLE, i, 0, comm);
    } else {
        MPI_Recv(data, count, MPI_DOUBLE, 0, 0, comm, MPI_STATUS_IGNORE);
    }
}

static double pair_sum(const double *data, int count, MPI_Comm pair)
{
    int members = 0;
    double local = 0, total = 0;
    MPI_Comm_size(pair, &members);
    for (int k = 0; k < members * count; k++)
        local += data[k % count];
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, pair);
    return total;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100, rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm pairs;
    MPI_Comm_split(MPI_COMM_WORLD, rank / 2, rank, &pairs);
    double *d = calloc(n, sizeof *d), s = 0;
    for (int i = 0; i < n; i++)
        d[i] = rank == 0 ? i : 0;
    for (int t = 0; t < 10; t++) {
        my_bcast(d, n, MPI_COMM_WORLD);
        s += pair_sum(d, n, pairs);
    }
    if (rank == 0)
        printf("%.1f\n", s);
    MPI_Comm_free(&pairs);
    free(d);
    MPI_Finalize();
    return 0;
}
