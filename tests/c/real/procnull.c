/* A halo exchange between MPI_Cart_shift neighbours, MPI_PROC_NULL at the ends of a non-periodic
 * chain (mkurnosov's life-mpi-2d-cart): a send to MPI_PROC_NULL moves nothing, but the run and the
 * model counted it as a message (on one process every "message" of the exchange; at P = 2 half of
 * each rank's).  Now the wrappers record no message for it and the model gives the sends a partner
 * where the runs had one: rank != 0 (left), rank != P - 1 (right).  Usage: procnull N STEPS */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
int main(int argc, char **argv)
{
    int n = atoi(argv[1]), steps = atoi(argv[2]), rank, size, left, right;
    MPI_Comm cart;
    int dims[1] = {0}, periods[1] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 1, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &rank);
    MPI_Cart_shift(cart, 0, 1, &left, &right);   /* MPI_PROC_NULL at the ends */
    int m = n / size;
    double *u = calloc(m + 2, sizeof *u), *v = calloc(m + 2, sizeof *v);
    for (int i = 1; i <= m; i++) u[i] = rank * m + i;
    for (int s = 0; s < steps; s++) {
        MPI_Sendrecv(&u[m], 1, MPI_DOUBLE, right, 0, &u[0], 1, MPI_DOUBLE, left, 0, cart, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 1, &u[m + 1], 1, MPI_DOUBLE, right, 1, cart, MPI_STATUS_IGNORE);
        for (int i = 1; i <= m; i++) v[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
        double *t = u; u = v; v = t;
    }
    if (rank == 0) printf("%g\n", u[1]);
    MPI_Finalize();
    return 0;
}
