/* A halo exchange that tests before it waits (issue 19, found by review of the polling change):
 * `MPI_Testall(..., &flag, ...); if (!flag) MPI_Waitall(...)` reads a test's flag, but its branch
 * only waits: the function is no polling function (observe.polling_conds), and its contexts keep
 * their call sites and the arguments their loops are bounded by (exchange(u, n) and
 * exchange(u, 4 * n)).  Gathered as one, the model was -25 % in ops at 8x and missed its own runs. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void exchange(double *u, int n, int to, int from)
{
    MPI_Request r[2];
    int flag = 0;
    MPI_Irecv(u + n, 1, MPI_DOUBLE, from, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(u, 1, MPI_DOUBLE, to, 0, MPI_COMM_WORLD, &r[1]);
    MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE);
    if (!flag)
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    for (int i = 0; i < n; i++)
        u[i] = 0.5 * (u[i] + u[i + 1]);
}

int main(int argc, char **argv)
{
    int rank, size, n = argc > 1 ? atoi(argv[1]) : 100;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *u = calloc(4 * (size_t)n + 1, sizeof(double));
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    for (int s = 0; s < 10; s++)
        exchange(u, n, to, from);
    for (int s = 0; s < n / 50; s++)
        exchange(u, 4 * n, to, from);
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        sum += u[i];
    if (rank == 0)
        printf("%f\n", sum);
    free(u);
    MPI_Finalize();
    return 0;
}
