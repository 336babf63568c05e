/* Collectives on communicators of a process grid (ParRes Kernels' DGEMM: comm_row from
   MPI_Group_incl + MPI_Comm_create, comm_col likewise; the usual MPI_Comm_split by row and column).
   Their sizes come from their construction: a split by rank / npcol has npcol ranks, by
   rank % npcol the ranks of that column, a group of npcol listed ranks npcol.  Before, every
   collective was priced with P processes: an Allgather on a one-process column of a 1 x 2 grid sent
   a message it never sends, and on 4 processes (2 x 2) each collective was priced for 4.
   Usage: subcomms N */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include "grid.h"

int main(int argc, char **argv)
{
    int rank, nprocs, nprow, npcol;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    int n = argc > 1 ? atoi(argv[1]) : 100;
    factor(nprocs, &nprow, &npcol);
    int myrow = rank / npcol;
    MPI_Comm row, col, twin, listed, column;
    MPI_Comm_split(MPI_COMM_WORLD, myrow, rank, &row);
    MPI_Comm_split(MPI_COMM_WORLD, rank % npcol, rank, &col);
    MPI_Comm_dup(col, &twin);
    MPI_Group world, members;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int *ranks = malloc((size_t)nprocs * sizeof(int));
    ranks[0] = myrow * npcol;
    for (int i = 1; i < npcol; i++)
        ranks[i] = ranks[i - 1] + 1;
    MPI_Group_incl(world, npcol, ranks, &members);
    MPI_Comm_create(MPI_COMM_WORLD, members, &listed);
    MPI_Group_free(&members);
    for (int i = 0; i < nprow; i++)  /* the same group variable again, for the column (DGEMM's comm_col) */
        ranks[i] = rank % npcol + i * npcol;
    MPI_Group_incl(world, nprow, ranks, &members);
    MPI_Comm_create(MPI_COMM_WORLD, members, &column);
    double *buf = malloc((size_t)n * sizeof(double)), *sum = malloc((size_t)n * sizeof(double));
    double *all = malloc((size_t)n * (size_t)nprocs * sizeof(double));
    for (int i = 0; i < n; i++)
        buf[i] = rank + i;
    double check = 0.0;
    for (int step = 0; step < 3; step++) {
        MPI_Allreduce(buf, sum, n, MPI_DOUBLE, MPI_SUM, row);
        MPI_Bcast(sum, n, MPI_DOUBLE, 0, col);
        MPI_Allgather(sum, n, MPI_DOUBLE, all, n, MPI_DOUBLE, twin);
        MPI_Allreduce(sum, buf, n, MPI_DOUBLE, MPI_MAX, listed);
        MPI_Allgather(&n, 1, MPI_INT, ranks, 1, MPI_INT, column);
        MPI_Allreduce(buf, sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        check += sum[0];
    }
    if (rank == 0)
        printf("grid %d x %d: %.1f\n", nprow, npcol, check);
    MPI_Comm_free(&row);
    MPI_Comm_free(&col);
    MPI_Comm_free(&twin);
    MPI_Comm_free(&listed);
    MPI_Comm_free(&column);
    MPI_Group_free(&members);
    MPI_Group_free(&world);
    free(ranks);
    free(buf);
    free(sum);
    free(all);
    MPI_Finalize();
    return 0;
}
