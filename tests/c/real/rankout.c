/* The rank stored through a helper's pointer parameter by MPI itself (HOMB's setPEsParams:
 * `MPI_Comm_rank(MPI_COMM_WORLD, myPE);` with `int *myPE`): myPE was no rank to perfeq, the root's
 * post-processing a ratio 1/P spread over the ranks (totals exact, the slowest rank -71 % at
 * P = 4).  Now the rank, its branch rank == 0.  Usage: rankout N */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int processes;

static void set_ranks(int *me)
{
    MPI_Comm_size(MPI_COMM_WORLD, &processes);
    MPI_Comm_rank(MPI_COMM_WORLD, me);
}

int main(int argc, char **argv)
{
    int me, n = argc > 1 ? atoi(argv[1]) : 100, i;
    double s = 0, t = 0;
    MPI_Init(&argc, &argv);
    set_ranks(&me);
    for (i = 0; i < n; i++)
        s += i;
    if (me == 0) /* the root's post-processing */
        for (i = 0; i < 10 * n; i++)
            s += 0.5 * i;
    MPI_Reduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("t %g\n", t);
    MPI_Finalize();
    return 0;
}
