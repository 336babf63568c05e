/* A ring broadcast on a communicator the program made (PRK DGEMM's RING_Bcast on MPI_Comm_create
 * row and column communicators, issue 19): whether a rank receives and sends depends on its rank in
 * that communicator, which perfeq cannot resolve, so the branches keep the ratios the runs measured;
 * on one process neither branch runs.  Run: ringcomm n */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void ring_bcast(double *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    int me, np;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &np);
    if (me != root)
        MPI_Recv(buf, count, type, (me - 1 + np) % np, root, comm, MPI_STATUS_IGNORE);
    if ((me + 1) % np != root)
        MPI_Send(buf, count, type, (me + 1) % np, root, comm);
}

int main(int argc, char **argv)
{
    int rank, size, n = argc > 1 ? atoi(argv[1]) : 64;
    MPI_Comm ring;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &ring);
    double *panel = malloc((size_t)n * sizeof(double));
    double sum = 0.0, total = 0.0;
    for (int k = 0; k < n; k += 8) {
        for (int i = 0; i < n; i++)
            panel[i] = rank + k + i * 0.5;
        ring_bcast(panel, n, MPI_DOUBLE, (k / 8) % size, ring);
        for (int i = 0; i < n; i++)
            sum += panel[i];
    }
    MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%.1f\n", total);
    free(panel);
    MPI_Comm_free(&ring);
    MPI_Finalize();
    return 0;
}
