/* Convolution test program: an explicit heat-equation step as the csc-training solver writes it,
 * indices in scalar variables (int ind = i * (ny + 2) + j; the compiler strength-reduces them and
 * folds them into the loads' addressing) and two divisions per point by variables (kept: no
 * -ffast-math), one by 2.0 (a multiplication).  argv: n, steps.  Prints a checksum on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void evolve(double *curr, const double *prev, int nx, int ny, double dx2, double dy2)
{
    for (int i = 1; i < nx + 1; i++) {
        for (int j = 1; j < ny + 1; j++) {
            int ind = i * (ny + 2) + j;
            int ip = (i + 1) * (ny + 2) + j;
            int im = (i - 1) * (ny + 2) + j;
            curr[ind] = prev[ind] + 0.01 * ((prev[ip] - 2.0 * prev[ind] + prev[im]) / dx2 +
                                            (prev[ind + 1] - 2.0 * prev[ind] + prev[ind - 1]) / dy2) / 2.0;
        }
    }
}

int main(int argc, char **argv)
{
    int n, steps, rank;
    double *a, *b, mine = 0.0, total = 0.0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    n = argc > 1 ? atoi(argv[1]) : 40;
    steps = argc > 2 ? atoi(argv[2]) : 2;
    a = calloc((size_t)(n + 2) * (n + 2), sizeof(double));
    b = calloc((size_t)(n + 2) * (n + 2), sizeof(double));
    if (!a || !b)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < (n + 2) * (n + 2); i++)
        a[i] = i % 13;
    for (int s = 0; s < steps; s++) {
        evolve(b, a, n, n, 0.25, 0.5);
        double *t = a;
        a = b;
        b = t;
    }
    for (int i = 0; i < (n + 2) * (n + 2); i++)
        mine += a[i];
    MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("checksum %.6e\n", total);
    free(a);
    free(b);
    MPI_Finalize();
    return 0;
}
