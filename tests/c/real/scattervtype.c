/* A block scattered and gathered with one element of a derived type per rank: counts[] all 1,
 * the datatype a resized MPI_Type_create_subarray of the local block, whose size grows with n
 * (nikela/Jacobi3D's scatter_gather, Jacobi3D_hybrid.c:334-357).  The bytes were kept at the
 * training runs' per call (-52.8 % at 8x on Jacobi3D): the array's sum was fitted only on the
 * runs where the root sends (a constant 2 on two processes) and the resized type had no size;
 * the root, MPI_Cart_rank's rank at {0, 0} of a grid passed in, was averaged over the ranks.
 * Usage: scattervtype n */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define COLS 16

static void scatter(double *g, int *counts, int *displs, MPI_Datatype type, double *l, int nl, MPI_Comm cart)
{
    int c[2] = {0, 0}, root;
    MPI_Cart_rank(cart, c, &root);
    MPI_Scatterv(g, counts, displs, type, l, nl * COLS, MPI_DOUBLE, root, cart);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int dims[2] = {size, 1}, periods[2] = {0, 0};
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    int n = argc > 1 ? atoi(argv[1]) : 32;
    int nl = n / size;
    double *g = NULL, *l = malloc((size_t)nl * COLS * sizeof(double)), s = 0;
    if (rank == 0) {
        g = malloc((size_t)n * COLS * sizeof(double));
        for (int i = 0; i < n * COLS; i++)
            g[i] = i % 13;
    }
    int sizes[2] = {n, COLS}, sub[2] = {nl, COLS}, start[2] = {0, 0};
    MPI_Datatype block, resized;
    MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_DOUBLE, &block);
    MPI_Type_create_resized(block, 0, sizeof(double), &resized);
    MPI_Type_commit(&resized);
    int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
    for (int i = 0; i < size; i++) {
        counts[i] = 1;
        displs[i] = i * nl * COLS;
    }
    for (int it = 0; it < 5; it++) {
        scatter(g, counts, displs, resized, l, nl, cart);
        for (int i = 0; i < nl * COLS; i++) {
            l[i] *= 0.5;
            s += l[i];
        }
        MPI_Gatherv(l, nl * COLS, MPI_DOUBLE, g, counts, displs, resized, 0, MPI_COMM_WORLD);
    }
    if (rank == 0)
        printf("%g %g\n", s, g[n * COLS - 1]);
    MPI_Type_free(&resized);
    MPI_Type_free(&block);
    MPI_Comm_free(&cart);
    free(counts);
    free(displs);
    free(l);
    free(g);
    MPI_Finalize();
    return 0;
}
