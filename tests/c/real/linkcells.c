/* Link cells (CoMD's boxes, issue 19): the number of cells of a rank is computed from the domain
 * size, the cut-off and the process count, and kept in an array element, so its loop bound is data
 * to perfeq.  Cells per rank: floor(n 0.77 / P) + 2 halo cells, affine in the rank's share of n; no
 * single c * form reproduces it, a + b * floor(n / P) does. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

struct boxes {
    int ncells[3];
    double *mass;
};

static void init_boxes(struct boxes *b, int n, int size)
{
    b->ncells[0] = (int)(n * 0.77 / size) + 2;
    b->mass = malloc((size_t)b->ncells[0] * sizeof(double));
    for (int i = 0; i < b->ncells[0]; i++)
        b->mass[i] = 1.0 + i % 3;
}

int main(int argc, char **argv)
{
    int rank, size, n = argc > 1 ? atoi(argv[1]) : 16;
    struct boxes b;
    double energy = 0.0, total = 0.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    init_boxes(&b, n, size);
    for (int step = 0; step < 10; step++)
        for (int i = 0; i < b.ncells[0]; i++)
            energy += b.mass[i] * (step + 1);
    MPI_Allreduce(&energy, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%.1f\n", total);
    free(b.mass);
    MPI_Finalize();
    return 0;
}
