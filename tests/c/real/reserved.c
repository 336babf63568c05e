/* Program variables named like perfeq's own symbols (found by a helper on a heat code whose time
 * steps were T): T time steps (not the threads), P particles (not the processes), rank a matrix
 * rank read from the command line (not the MPI rank, which is `me` here), lambda (a Python keyword)
 * and E (sympy's e).  Each was taken for perfeq's symbol: the T steps became the thread count
 * (ops -70.6 % at 8x).  They are the model's T_, P_ and rank_ now.
 * Usage: reserved N T P RANK LAMBDA E */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int me, nprocs;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    int N = argc > 1 ? atoi(argv[1]) : 1000;
    int T = argc > 2 ? atoi(argv[2]) : 10;
    int P = argc > 3 ? atoi(argv[3]) : 5;
    int rank = argc > 4 ? atoi(argv[4]) : 3;
    int lambda = argc > 5 ? atoi(argv[5]) : 2;
    int E = argc > 6 ? atoi(argv[6]) : 2;
    int local = N / nprocs, t, i, p, r, l, e;
    double *a = calloc(local + rank + lambda + E, sizeof(double)), s = 0, total = 0;
    for (t = 0; t < T; t++) {
#pragma omp parallel for
        for (i = 0; i < local; i++)
            a[i] += (me * local + i) * 0.5;
        MPI_Allreduce(MPI_IN_PLACE, a, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    for (p = 0; p < P; p++)
        for (i = 0; i < local; i++)
            s += a[i] * p;
    for (r = 0; r < rank; r++)
        s += a[r];
    for (l = 0; l < lambda; l++)
        s -= a[l];
    for (e = 0; e < E; e++)
        s += 2 * a[e];
    MPI_Reduce(&s, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0)
        printf("%g\n", total);
    free(a);
    MPI_Finalize();
    return 0;
}
