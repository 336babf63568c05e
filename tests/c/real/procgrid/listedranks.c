/* Row and column communicators from lists of ranks, as the ParRes Kernels' DGEMM makes them: the
   grid from `while (P % nprow) nprow--;`, one array of ranks filled for the row (ranks[0] then
   ranks[i] = ranks[i - 1] + 1), made a group and a communicator, then refilled for the column
   (+ npcol), and each rank's place in them asked with MPI_Comm_rank.  Before, that place was
   "not known": the loops over the ranks before this one in its row and column kept the training
   runs' trips (0, then 1/2 on 2 processes) and were off on any other grid.  Usage: listedranks N */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int me, nprocs, n, nprow, npcol, myrow, mycol;
    MPI_Group world, group;
    MPI_Comm comm_row, comm_col;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    n = argc > 1 ? atoi(argv[1]) : 100;
    nprow = (int)(sqrt((double)nprocs + 1e-3));
    while (nprocs % nprow)
        nprow--;
    npcol = nprocs / nprow;
    int *ranks = malloc(sizeof(int) * (size_t)nprocs);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    ranks[0] = me / npcol * npcol;
    for (int i = 1; i < npcol; i++)
        ranks[i] = ranks[i - 1] + 1;
    MPI_Group_incl(world, npcol, ranks, &group);
    MPI_Comm_create(MPI_COMM_WORLD, group, &comm_row);
    ranks[0] = me % npcol;
    for (int i = 1; i < nprow; i++)
        ranks[i] = ranks[i - 1] + npcol;
    MPI_Group_incl(world, nprow, ranks, &group);
    MPI_Comm_create(MPI_COMM_WORLD, group, &comm_col);
    MPI_Comm_rank(comm_row, &mycol);
    MPI_Comm_rank(comm_col, &myrow);
    double sum = 0.0, total = 0.0;
    int first = 0;
    for (int i = 0; i < mycol; i++)  /* the columns before mine */
        first += n / npcol;
    for (int j = 0; j < myrow; j++)  /* the rows before mine */
        for (int i = 0; i < n; i++)
            sum += 1.0 / (1.0 + i + j + first);
    MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, comm_row);
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_DOUBLE, MPI_SUM, comm_col);
    if (me == 0)
        printf("grid %d x %d total %.10f\n", nprow, npcol, total);
    free(ranks);
    MPI_Comm_free(&comm_row);
    MPI_Comm_free(&comm_col);
    MPI_Finalize();
    return 0;
}
