/* A 3-D face exchange on the grid MPI_Dims_create(size, 3, dims) gives, periodic in the last
 * dimension only, the neighbours set in a loop over the dimensions (nb[2 * d], nb[2 * d + 1]).
 * The grid's sides are MPICH's three-dimensional factorization (grid3(P, k): 2 x 1 x 1 on 2
 * processes, 2 x 2 x 2 on 8, 10 x 6 x 6 on 360), not the two-dimensional grid_lo/grid_hi the runs
 * on 1 and 2 processes also fit; the neighbours come from the element of nb the loop set at that
 * index.  From runs on 1 and 2 processes: exact per rank on 8.
 * usage: cart3d n steps */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 24, steps = argc > 2 ? atoi(argv[2]) : 4;
    int size, rank, dims[3] = {0, 0, 0}, periods[3] = {0, 0, 1}, nb[6], d, s, i;
    MPI_Comm grid;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 3, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 1, &grid);
    MPI_Comm_rank(grid, &rank);
    for (d = 0; d < 3; d++)
        MPI_Cart_shift(grid, d, 1, &nb[2 * d], &nb[2 * d + 1]);
    int lx = n / dims[0], ly = n / dims[1], lz = n / dims[2];
    int face = lx * ly > ly * lz ? lx * ly : ly * lz;
    face = face > lx * lz ? face : lx * lz;
    double *out = calloc(face, sizeof *out), *in = calloc(face, sizeof *in), acc = 0, total;
    for (s = 0; s < steps; s++) {
        MPI_Sendrecv(out, ly * lz, MPI_DOUBLE, nb[0], 0, in, ly * lz, MPI_DOUBLE, nb[1], 0, grid, MPI_STATUS_IGNORE);
        MPI_Sendrecv(out, ly * lz, MPI_DOUBLE, nb[1], 1, in, ly * lz, MPI_DOUBLE, nb[0], 1, grid, MPI_STATUS_IGNORE);
        MPI_Sendrecv(out, lx * lz, MPI_DOUBLE, nb[2], 2, in, lx * lz, MPI_DOUBLE, nb[3], 2, grid, MPI_STATUS_IGNORE);
        MPI_Sendrecv(out, lx * lz, MPI_DOUBLE, nb[3], 3, in, lx * lz, MPI_DOUBLE, nb[2], 3, grid, MPI_STATUS_IGNORE);
        MPI_Sendrecv(out, lx * ly, MPI_DOUBLE, nb[4], 4, in, lx * ly, MPI_DOUBLE, nb[5], 4, grid, MPI_STATUS_IGNORE);
        MPI_Sendrecv(out, lx * ly, MPI_DOUBLE, nb[5], 5, in, lx * ly, MPI_DOUBLE, nb[4], 5, grid, MPI_STATUS_IGNORE);
        for (i = 0; i < lx * ly * lz / 8; i++)
            acc += i * 0.5;
    }
    MPI_Reduce(&acc, &total, 1, MPI_DOUBLE, MPI_SUM, 0, grid);
    if (rank == 0)
        printf("%g\n", total);
    free(out), free(in);
    MPI_Finalize();
    return 0;
}
