/* haloconverge: a halo of one row (ny doubles) exchanged in a solve that iterates until it
 * converges (keatina3/2d-poisson-MPI_Cart-solve, jacobi.c:7-12 and 39-57, utils.c decomp1d).
 * The iterations are data, fitted, so the exchange's total bytes cannot match the runs exactly,
 * and perfeq fell back to the bytes per call the training runs measured: the program's bytes
 * -36 % at 8x (here -90 %) although the row's length is the size.  Usage: haloconverge NX */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

void decomp1d(int n, int size, int rank, int *s, int *e)
{
    int nlocal = n / size, deficit = n % size;
    *s = rank * nlocal + 1;
    *s = *s + ((rank < deficit) ? rank : deficit);
    if (rank < deficit)
        nlocal++;
    *e = *s + nlocal - 1;
    if (*e > n || rank == size - 1)
        *e = n;
}

int main(int argc, char **argv)
{
    int rank, size, nx = argc > 1 ? atoi(argv[1]) : 16, xs, xe, ys, ye, count = 0;
    double ldiff, gdiff;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    double *vals = calloc((size_t)(nx + 2) * (nx + 2), sizeof(double));
    double **u = malloc((nx + 2) * sizeof(double *));
    for (int i = 0; i < nx + 2; i++) {
        u[i] = &vals[i * (nx + 2)];
        u[i][nx + 1] = 1.0;
    }
    decomp1d(nx, size, rank, &xs, &xe); /* rows split over the ranks */
    decomp1d(nx, 1, 0, &ys, &ye);       /* columns not split */
    while (count < 2000) {
        MPI_Sendrecv(&u[xe][ys], ye - ys + 1, MPI_DOUBLE, right, 0, &u[xs - 1][ys], ye - ys + 1, MPI_DOUBLE,
                     left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        ldiff = 0.0;
        for (int i = xs; i <= xe; i++)
            for (int j = ys; j <= ye; j++) {
                double v = 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]);
                ldiff += (v - u[i][j]) * (v - u[i][j]);
                u[i][j] = v;
            }
        MPI_Allreduce(&ldiff, &gdiff, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (gdiff < 1.0E-07)
            break;
        count++;
    }
    if (rank == 0)
        printf("nx %d iterations %d\n", nx, count);
    free(u);
    free(vals);
    MPI_Finalize();
    return 0;
}
