/* A comparison used as a number (parallel-etudes mpi-circles.c: local_K = K / comm_sz + (K %
 * comm_sz < my_rank)): the first n % P ranks take one item more.  The model could not add a
 * condition to a number and took the items' mean over the ranks (wrong per rank whenever P does
 * not divide n).  Usage: cmpvalue N */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>

static double work(int m)
{
    double s = 0.0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < 100; j++)
            s += 1.0 / (1.0 + i + j);
    return s;
}

int main(int argc, char *argv[])
{
    int rank, size, n = atoi(argv[1]);
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int mine = n / size + (rank < n % size);
    int extra = -(rank == size - 1) + 2 * (n > 10);
    double s = work(mine + extra), t = 0.0;
    MPI_Reduce(&s, &t, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d %.6f\n", n, t);
    MPI_Finalize();
    return 0;
}
