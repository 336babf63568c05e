/* A process grid from MPI_Dims_create into an array initialised to zeros (the SC17 MPI tutorial's
 * jacobi2d): the tile is n / pdims[1] by n / pdims[0].  The elements are the grid's sides (P = 4:
 * 2 x 2, P = 3: 3 x 1), not the initialiser's zeros, which made the tile n / 0 (perfeq model
 * stopped with an internal error, session 32).  A sum MPI_Allreduce writes into an initialised
 * variable is not its initialiser either: the loop over it is fitted and says so.
 * Usage: dimscreate N */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 60, size, rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int pdims[2] = {0, 0};
    MPI_Dims_create(size, 2, pdims);
    int by = n / pdims[1], bx = n / pdims[0];
    double s = 0;
    for (int j = 1; j <= by; j++)
        for (int i = 1; i <= bx; i++)
            s += j * 0.5 + i;
    int total = 0, mine = n / size;
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int k = 0; k < total; k++)
        s += k;
    double all = 0;
    MPI_Reduce(&s, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d x %d: %.1f\n", pdims[0], pdims[1], all);
    MPI_Finalize();
    return 0;
}
