/* A neighbour's rank from a function ending in an if/else whose branches both return (Ember
 * halo3d-26's convert_position_to_rank: `if (out of the grid) { return -1; } else { return ...; }`),
 * tested `if (up > -1)`.  Only `if (c) return a; return b;` bodies had their value resolved; this
 * one's test kept a measured ratio and the model sent messages on one process.
 * Usage: mpiexec -n P retval PX N (PX divides P) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int to_rank(int x, int px)
{
    if ((x < 0) || (x >= px)) {
        return -1;
    } else {
        return x;
    }
}
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np, px = atoi(argv[1]), n = atoi(argv[2]);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    int x = me % px;
    const int up = to_rank(x + 1, px), down = to_rank(x - 1, px);
    double *buf = calloc(n, sizeof(double)), *rb = calloc(n, sizeof(double));
    MPI_Request rq[4];
    for (int it = 0; it < 10; it++) {
        int c = 0;
        if (up > -1) { MPI_Irecv(rb, n, MPI_DOUBLE, me + 1, 1, MPI_COMM_WORLD, &rq[c++]); MPI_Isend(buf, n, MPI_DOUBLE, me + 1, 1, MPI_COMM_WORLD, &rq[c++]); }
        if (down > -1) { MPI_Irecv(rb, n, MPI_DOUBLE, me - 1, 1, MPI_COMM_WORLD, &rq[c++]); MPI_Isend(buf, n, MPI_DOUBLE, me - 1, 1, MPI_COMM_WORLD, &rq[c++]); }
        MPI_Waitall(c, rq, MPI_STATUSES_IGNORE);
    }
    if (me == 0) printf("%d %d\n", up, down);
    free(buf); free(rb);
    MPI_Finalize();
    return 0;
}
