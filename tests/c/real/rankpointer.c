/* MPI_Comm_rank/MPI_Comm_size given a pointer parameter (not &var): perfeq recorded
 * PERFEQ_PARAM("rank", rank) after them, a pointer converted to double, and the instrumented file
 * did not compile ("pointer value used where a floating-point was expected"; HPCC's
 * PTRANS/cblacslt.c, Cblacs_pinfo). */
#include <mpi.h>
#include <stdio.h>

static void info(int *rank, int *size)
{
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
}

int main(int argc, char **argv)
{
    int r, s;
    MPI_Init(&argc, &argv);
    info(&r, &s);
    printf("%d/%d\n", r, s);
    MPI_Finalize();
    return 0;
}
