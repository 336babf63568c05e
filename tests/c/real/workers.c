/* A master and P - 1 workers (LLNL's mpi_mm.c, mpi_array.c): rank 0 sends each worker
 * n / (P - 1) rows, a worker receives that count by MPI_Recv, loops over the rows and sends them
 * back.  The received count is data, fitted from the runs: the forms had n / P and floor(n / P) but
 * no n / (P - 1), and a spurious k * floor(c * n / P), exact on the training runs at P = 2, 3, was
 * +37 % off at 8x (ops; bytes -25 %).
 * Usage: mpiexec -n P workers N (P >= 2) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int rank, size, n = atoi(argv[1]), rows;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *a = malloc(n * sizeof(double));
    if (rank == 0) {
        for (int i = 0; i < n; i++) a[i] = i;
        int avg = n / (size - 1), off = 0;
        for (int w = 1; w < size; w++) {
            MPI_Send(&avg, 1, MPI_INT, w, 1, MPI_COMM_WORLD);
            MPI_Send(a + off, avg, MPI_DOUBLE, w, 1, MPI_COMM_WORLD);
            off += avg;
        }
        double s = 0;
        for (int w = 1; w < size; w++) {
            MPI_Recv(a, avg, MPI_DOUBLE, w, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < avg; i++) s += a[i];
        }
        printf("%g\n", s);
    } else {
        MPI_Recv(&rows, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(a, rows, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int i = 0; i < rows; i++) a[i] = a[i] * 2.0 + 1.0;
        MPI_Send(a, rows, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
    }
    free(a);
    MPI_Finalize();
    return 0;
}
