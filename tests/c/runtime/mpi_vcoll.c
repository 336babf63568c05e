/* mpi_vcoll.c -- perfeq runtime test: collectives with array counts and prefix reductions
 * (MPI_Alltoallv, also in place; MPI_Exscan; MPI_Scan; MPI_Scatterv; MPI_Reduce_scatter;
 * MPI_Reduce_scatter_block).  Hand-instrumented as perfeq's instrumenter emits code.
 *
 * Rank r sends (r + 1) * (j + 2) ints to rank j by MPI_Alltoallv, then r + j + 1 doubles to rank j
 * by an in-place MPI_Alltoallv (symmetric counts); MPI_Exscan of 2 long longs; MPI_Scan of 3
 * doubles, twice at one site; MPI_Scatterv from root 0 of j + 1 ints to rank j; MPI_Reduce_scatter
 * of j + 1 doubles for rank j; MPI_Reduce_scatter_block of 2 ints.  Every result is checked:
 * prints "ok" on rank 0, exit status 1 on a wrong result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include "perfeq_rt.h"
static const perfeq_func_t perfeq__funcs[] = { {"main", 1, 0, 0, 0} };
static perfeq_unit_t perfeq__unit = { PERFEQ_ABI_VERSION, "mpi_vcoll.c", "mpi_vcoll.perfeq.json", "0123abcd", 1, perfeq__funcs, 0, 0, 0, 0 };
#line 1 "mpi_vcoll.c"
int main(int argc, char **argv)
{
    PERFEQ_FUNC_BEGIN(perfeq__unit, 0)
    PERFEQ_BLOCK(0); int rank, size, i, j, it, bad = 0, total = 0, all;
    int *scounts, *sdispls, *rcounts, *rdispls, *ibuf, *rbuf, *vcounts, *vdispls;
    double *dbuf, *dsend, drecv[64], part[3], prefix[3];
    long long mine[2], before[2] = {0, 0};
    int block[2], bsum[2], *bsend, *pairs;

    (PERFEQ_MPI(1), MPI_Init(&argc, &argv));
    (PERFEQ_MPI(2), MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    (PERFEQ_MPI(3), MPI_Comm_size(MPI_COMM_WORLD, &size));
    scounts = malloc(4 * size * sizeof(int));
    sdispls = scounts + size;
    rcounts = scounts + 2 * size;
    rdispls = scounts + 3 * size;

    /* alltoallv: (rank + 1) * (j + 2) ints to rank j, each the value 1000 * rank + j */
    for (j = 0; j < size; j++) {
        scounts[j] = (rank + 1) * (j + 2);
        rcounts[j] = (j + 1) * (rank + 2);
        sdispls[j] = j == 0 ? 0 : sdispls[j - 1] + scounts[j - 1];
        rdispls[j] = j == 0 ? 0 : rdispls[j - 1] + rcounts[j - 1];
    }
    ibuf = malloc((sdispls[size - 1] + scounts[size - 1]) * sizeof(int));
    rbuf = malloc((rdispls[size - 1] + rcounts[size - 1]) * sizeof(int));
    for (j = 0; j < size; j++)
        for (i = 0; i < scounts[j]; i++)
            ibuf[sdispls[j] + i] = 1000 * rank + j;
    (PERFEQ_MPI(4), MPI_Alltoallv(ibuf, scounts, sdispls, MPI_INT, rbuf, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD));
    for (j = 0; j < size; j++)
        for (i = 0; i < rcounts[j]; i++)
            bad |= rbuf[rdispls[j] + i] != 1000 * j + rank;

    /* in place: rank + j + 1 doubles with rank j (symmetric counts), the value rank */
    for (j = 0; j < size; j++) {
        rcounts[j] = rank + j + 1;
        rdispls[j] = j == 0 ? 0 : rdispls[j - 1] + rcounts[j - 1];
        total += rcounts[j];
    }
    dbuf = malloc(total * sizeof(double));
    for (i = 0; i < total; i++)
        dbuf[i] = rank;
    (PERFEQ_MPI(5), MPI_Alltoallv(MPI_IN_PLACE, scounts, sdispls, MPI_INT, dbuf, rcounts, rdispls, MPI_DOUBLE, MPI_COMM_WORLD));
    for (j = 0; j < size; j++)
        for (i = 0; i < rcounts[j]; i++)
            bad |= dbuf[rdispls[j] + i] != j;

    /* exclusive and inclusive prefix sums */
    mine[0] = rank + 1;
    mine[1] = 2 * rank;
    (PERFEQ_MPI(6), MPI_Exscan(mine, before, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    if (rank > 0)
        bad |= before[0] != (long long)rank * (rank + 1) / 2 || before[1] != (long long)rank * (rank - 1);
    for (it = 0; it < 2; it++) {
        part[0] = 1;
        part[1] = rank;
        part[2] = it;
        (PERFEQ_MPI(7), MPI_Scan(part, prefix, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        bad |= prefix[0] != rank + 1 || prefix[1] != rank * (rank + 1) / 2 || prefix[2] != it * (rank + 1);
    }

    /* scatterv from rank 0: j + 1 ints to rank j, the value j */
    vcounts = malloc(2 * size * sizeof(int));
    vdispls = vcounts + size;
    for (j = 0; j < size; j++) {
        vcounts[j] = j + 1;
        vdispls[j] = j == 0 ? 0 : vdispls[j - 1] + vcounts[j - 1];
    }
    bsend = malloc((vdispls[size - 1] + vcounts[size - 1]) * sizeof(int));
    for (j = 0; j < size; j++)
        for (i = 0; i < vcounts[j]; i++)
            bsend[vdispls[j] + i] = j;
    (PERFEQ_MPI(8), MPI_Scatterv(bsend, vcounts, vdispls, MPI_INT, rbuf, rank + 1, MPI_INT, 0, MPI_COMM_WORLD));
    for (i = 0; i < rank + 1; i++)
        bad |= rbuf[i] != rank;

    /* reduce_scatter: j + 1 doubles for rank j, each the sum of the ranks */
    dsend = malloc((vdispls[size - 1] + vcounts[size - 1]) * sizeof(double));
    for (i = 0; i < vdispls[size - 1] + vcounts[size - 1]; i++)
        dsend[i] = rank;
    (PERFEQ_MPI(9), MPI_Reduce_scatter(dsend, drecv, vcounts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    for (i = 0; i < rank + 1; i++)
        bad |= drecv[i] != size * (size - 1) / 2;

    /* reduce_scatter_block: 2 ints for every rank */
    pairs = malloc(2 * size * sizeof(int));
    for (i = 0; i < 2 * size; i++)
        pairs[i] = i;
    (PERFEQ_MPI(10), MPI_Reduce_scatter_block(pairs, block, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    bad |= block[0] != size * 2 * rank || block[1] != size * (2 * rank + 1);
    bsum[0] = bad;
    (PERFEQ_MPI(12), MPI_Allreduce(bsum, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    if (rank == 0)
        printf("%s\n", all ? "wrong" : "ok");

    free(scounts);
    free(ibuf);
    free(rbuf);
    free(dbuf);
    free(vcounts);
    free(bsend);
    free(pairs);
    free(dsend);
    (PERFEQ_MPI(11), MPI_Finalize());
    return all ? 1 : 0;
}
