/* A size named like a numpy function (IPP2's mpi-ssort-aa.c reads a modulus `mod` for random()):
 * the generated evaluation code named its argument `mod` and shadowed numpy's mod, which the
 * rooted collectives' message counts call: every Scatter, Reduce, Bcast and Gather fell back to
 * one run's measured bytes (-66 % at 8x there).  Usage: namedmod N MOD */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, p, i, it;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int n = argc > 1 ? atoi(argv[1]) : 4800;
    int mod = argc > 2 ? atoi(argv[2]) : 7;
    int local = n / p;
    int *all = NULL, *mine = malloc(local * sizeof(int));
    if (rank == 0) {
        all = malloc(n * sizeof(int));
        for (i = 0; i < n; i++)
            all[i] = i % mod;
    }
    long s = 0, total = 0;
    for (it = 0; it < 10; it++) {
        MPI_Scatter(all, local, MPI_INT, mine, local, MPI_INT, 0, MPI_COMM_WORLD);
        for (i = 0; i < local; i++)
            s += mine[i];
    }
    MPI_Reduce(&s, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%ld\n", total);
    free(all);
    free(mine);
    MPI_Finalize();
    return 0;
}
