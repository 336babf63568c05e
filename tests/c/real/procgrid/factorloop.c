/* The sides of a process grid computed by the program's own loops, not by a function (the PRK's
   factor() written out in main, as MPI codes often do): a downward search with a break, a while
   loop and a for loop with an empty body, each testing the process count modulo the side it
   sets.  Before, px, py, q and r were "assigned in a loop": the tile loops were fitted over the
   training runs on 1 and 2 processes (a 1 x 1 and a 1 x 2 grid), and on 4 processes (2 x 2) the
   halo bytes were +50 % and the messages -22 %.  Usage: factorloop N */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, nprocs, n, px, py = 1, q, r;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    n = argc > 1 ? atoi(argv[1]) : 100;
    for (px = (int)(sqrt(nprocs + 1.0)); px > 0; px--) {
        if (!(nprocs % px)) {
            py = nprocs / px;
            break;
        }
    }
    q = (int)sqrt((double)nprocs);
    while (nprocs % q)
        q--;
    for (r = (int)sqrt(nprocs); nprocs % r; r--);
    int ix = rank % px, iy = rank / px;
    int w = n / px, h = n / py;
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
        for (int j = 0; j < h; j++)
            for (int i = 0; i < w; i++)
                sum += 1.0 / (1.0 + i + j);
        for (int k = 0; k < n / q + n / (nprocs / r); k++)
            sum += 0.5 * k;
    }
    MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("grid %d x %d, %d, %d: total %.10f\n", px, py, q, r, total);
    free(row);
    free(col);
    MPI_Finalize();
    return 0;
}
