/* A master and P - 1 workers on strips of rows (LLNL's mpi_heat2D): the master sends each worker its
 * offset, rows and neighbours; a worker updates its interior rows (the first and last row of the
 * grid are boundary: (N - 2) / (P - 1) per worker on average), exchanges with the neighbours it has
 * (if (left != NONE): 1 - 1 / (P - 1) of the workers) and sends its rows * M values back.  All of
 * it is data to perfeq.  Fitted before as 11 floor(N / (P - 1)) / 12 (ops -7.5 % at 8x), a + b / P
 * ratios (messages +10.9 %) and one run's bytes per call (-28 to -39 %); exact in total now.
 * Usage: strips N M STEPS */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#define NONE (-1)

int main(int argc, char **argv)
{
    int me, p, w, i, j, t, offset, rows, left, right;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int n = atoi(argv[1]), m = atoi(argv[2]), steps = atoi(argv[3]);
    double *u = calloc((size_t)(n + 2) * m, sizeof(double));
    if (me == 0) {
        int ave = n / (p - 1), extra = n % (p - 1);
        double s = 0;
        for (w = 1, offset = 0; w < p; w++, offset += rows) {
            rows = w <= extra ? ave + 1 : ave;
            left = w == 1 ? NONE : w - 1;
            right = w == p - 1 ? NONE : w + 1;
            int info[4] = {offset, rows, left, right};
            MPI_Send(info, 4, MPI_INT, w, 1, MPI_COMM_WORLD);
        }
        for (w = 1; w < p; w++) {
            MPI_Status st;
            MPI_Recv(u, n * m, MPI_DOUBLE, w, 2, MPI_COMM_WORLD, &st);
            s += u[0];
        }
        printf("%g\n", s);
    } else {
        int info[4];
        MPI_Recv(info, 4, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        offset = info[0], rows = info[1], left = info[2], right = info[3];
        int start = offset == 0 ? 1 : offset, end = offset + rows == n ? offset + rows - 2 : offset + rows - 1;
        for (t = 0; t < steps; t++) {
            if (left != NONE)
                MPI_Sendrecv(u + m, m, MPI_DOUBLE, left, 3, u, m, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (right != NONE)
                MPI_Sendrecv(u + rows * m, m, MPI_DOUBLE, right, 3, u + (rows + 1) * m, m, MPI_DOUBLE, right, 3,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (i = start; i <= end; i++)
                for (j = 1; j < m - 1; j++)
                    u[(i - offset + 1) * m + j] = 0.25 * (u[(i - offset) * m + j] + u[(i - offset + 2) * m + j]) + 0.5;
        }
        MPI_Send(u + m, rows * m, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
    }
    free(u);
    MPI_Finalize();
    return 0;
}
