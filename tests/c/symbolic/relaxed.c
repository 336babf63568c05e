/* A loop whose bound has no closed-form sum in sympy: j < i / 2 (floor).  argv: n */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double half(const double *a, int n)
{
    double s = 0.0;
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < i / 2; j++)
            s += a[j];
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 30, rank, i;
    double *a, s;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    a = malloc((size_t)n * sizeof(double));
    for (i = 0; i < n; i++)
        a[i] = i;
    s = half(a, n);
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%g\n", s);
    free(a);
    MPI_Finalize();
    return 0;
}
