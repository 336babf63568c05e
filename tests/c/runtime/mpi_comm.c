/* mpi_comm.c -- perfeq runtime test: MPI point-to-point and collective calls, attributed to call
 * sites in two functions.  Hand-instrumented as perfeq's instrumenter emits code.  Usage: mpi_comm N
 */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include "perfeq_rt.h"
static const perfeq_func_t perfeq__funcs[] = { {"main", 5, 1, 0, 0}, {"exchange", 9, 0, 0, 0} };
static perfeq_unit_t perfeq__unit = { PERFEQ_ABI_VERSION, "mpi_comm.c", "mpi_comm.perfeq.json", "0123abcd", 2, perfeq__funcs, 0, 0, 0, 0 };
#line 1 "mpi_comm.c"
static int exchange(double *buf, int n, int rank, int size)
{
    PERFEQ_FUNC_BEGIN(perfeq__unit, 1)
    PERFEQ_BLOCK(0); int p;
    if (PERFEQ_COND(1, rank == 0)) {
        PERFEQ_BLOCK(3);
        { PERFEQ_LOOP_ENTER(4); for (p = 1; PERFEQ_ITER(5, p < size); p++) {
            PERFEQ_BLOCK(7); (PERFEQ_MPI(10), MPI_Send(buf, n, MPI_DOUBLE, p, 0, MPI_COMM_WORLD)); } }
    } else {
        PERFEQ_BLOCK(8); (PERFEQ_MPI(11), MPI_Recv(buf, n, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    return 0;
}

int main(int argc, char **argv)
{
    PERFEQ_FUNC_BEGIN(perfeq__unit, 0)
    PERFEQ_BLOCK(0); int rank, size, n = argc > 1 ? atoi(argv[1]) : 16, it; double x = 0, y = 0, pair[2], all[64];
    double *buf;
    PERFEQ_PARAM("n", n);
    (PERFEQ_MPI(1), MPI_Init(&argc, &argv));
    (PERFEQ_MPI(2), MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    (PERFEQ_MPI(3), MPI_Comm_size(MPI_COMM_WORLD, &size));
    buf = calloc(PERFEQ_SIZE(0, n * sizeof(double)), 1);
    (PERFEQ_CALL(perfeq__unit, 4, "exchange"), exchange(buf, n, rank, size));
    { PERFEQ_LOOP_ENTER(1); for (it = 0; PERFEQ_ITER(2, it < 3); it++) {
        PERFEQ_BLOCK(4);
        (PERFEQ_MPI(5), MPI_Bcast(buf, n, MPI_DOUBLE, 0, MPI_COMM_WORLD));
        x = buf[0] + rank;
        (PERFEQ_MPI(6), MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    } }
    (PERFEQ_MPI(7), MPI_Barrier(MPI_COMM_WORLD));
    (PERFEQ_MPI(9), MPI_Reduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, size - 1, MPI_COMM_WORLD));
    pair[0] = rank; pair[1] = -rank;
    (PERFEQ_MPI(12), MPI_Gather(pair, 2, MPI_DOUBLE, all, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    if (rank == 0)
        printf("n=%d size=%d y=%g\n", n, size, y);
    free(buf);
    (PERFEQ_MPI(8), MPI_Finalize());
    return 0;
}
