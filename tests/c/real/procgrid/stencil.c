/* A 2-D decomposition on a process grid (ParRes Kernels' MPI1/Stencil, reduced): the sides come
   from factor(P, &px, &py) in a header, each rank owns a tile of n x n with the leftover rows and
   columns on the first ranks, and exchanges one halo row with the rank above and below and one
   column with the ranks left and right where they exist.  Before, px and py were data: every loop
   over a tile was fitted and the halo sizes were measured, so 4 processes (a 2 x 2 grid, never
   run in training) had half their bytes.  Usage: stencil N */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#include "grid.h"

int main(int argc, char **argv)
{
    int rank, nprocs, n, px, py, first, last, top, bottom;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    n = argc > 1 ? atoi(argv[1]) : 100;
    factor(nprocs, &px, &py);
    int ix = rank % px, iy = rank / px;
    int width = n / px, leftover = n % px;
    if (ix < leftover) {
        first = ix * (width + 1);
        last = first + width;
    }
    else {
        first = leftover * (width + 1) + (ix - leftover) * width;
        last = first + width - 1;
    }
    int height = n / py, rest = n % py;
    if (iy < rest) {
        bottom = iy * (height + 1);
        top = bottom + height;
    }
    else {
        bottom = rest * (height + 1) + (iy - rest) * height;
        top = bottom + height - 1;
    }
    int w = last - first + 1, h = top - bottom + 1;
    double *row = calloc((size_t)w, sizeof(double)), *col = calloc((size_t)h, sizeof(double));
    double sum = 0.0, total = 0.0;
    for (int step = 0; step < 3; step++) {
        if (iy < py - 1)
            MPI_Sendrecv_replace(row, w, MPI_DOUBLE, rank + px, 1, rank + px, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (iy > 0)
            MPI_Sendrecv_replace(row, w, MPI_DOUBLE, rank - px, 2, rank - px, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (ix < px - 1)
            MPI_Sendrecv_replace(col, h, MPI_DOUBLE, rank + 1, 3, rank + 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (ix > 0)
            MPI_Sendrecv_replace(col, h, MPI_DOUBLE, rank - 1, 4, rank - 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int j = bottom; j <= top; j++)
            for (int i = first; i <= last; i++)
                sum += 1.0 / (1.0 + i + j);
    }
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("grid %d x %d total %.10f\n", px, py, total);
    free(row);
    free(col);
    MPI_Finalize();
    return 0;
}
