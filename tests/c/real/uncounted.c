/* An MPI call perfeq does not count (a non-blocking scan) is named at instrumentation. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Request request; int x = 1, y;
    MPI_Init(&argc, &argv);
    MPI_Iscan(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return y - 1;
}
