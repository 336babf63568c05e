/* A variable initialised where it is declared, then set through its address by a function (Ember
 * sweep3d: `int myX = -1, myY = -1; get_position(me, pex, pey, &myX, &myY);`): perfeq took the
 * initialiser -1 for its value, so the neighbour tests did not reproduce their runs (measured
 * ratios) and the messages of a 2 x 2 grid were -50 % off.
 * Usage: mpiexec -n PEX*PEY initptr PEX PEY N */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
void get_position(int rank, int pex, int *myX, int *myY)
{
    *myX = rank % pex;
    *myY = rank / pex;
}
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, pex = atoi(argv[1]), pey = atoi(argv[2]), n = atoi(argv[3]);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int myX = -1, myY = -1;
    get_position(me, pex, &myX, &myY);
    const int xUp = (myX != pex - 1) ? me + 1 : -1, yUp = (myY != pey - 1) ? me + pex : -1;
    const int xDown = (myX != 0) ? me - 1 : -1, yDown = (myY != 0) ? me - pex : -1;
    double *buf = calloc(n, sizeof(double));
    for (int it = 0; it < 10; it++) {
        if (xDown > -1) MPI_Recv(buf, n, MPI_DOUBLE, xDown, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (yDown > -1) MPI_Recv(buf, n, MPI_DOUBLE, yDown, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++) buf[i] += 1.0;
        if (xUp > -1) MPI_Send(buf, n, MPI_DOUBLE, xUp, 1, MPI_COMM_WORLD);
        if (yUp > -1) MPI_Send(buf, n, MPI_DOUBLE, yUp, 1, MPI_COMM_WORLD);
    }
    if (me == 0) printf("%g\n", buf[0]);
    free(buf);
    MPI_Finalize();
    return 0;
}
