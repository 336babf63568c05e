/* An MPI call perfeq does not count (a non-blocking barrier) is named at instrumentation. */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Request request;
    MPI_Init(&argc, &argv);
    MPI_Ibarrier(MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
