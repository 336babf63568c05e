/* tests/c/real/qsortparity.c: each rank sorts its keys with the C library's qsort, the even ranks
 * with one comparator, the odd ranks with another (a bitonic sort's direction by rank parity,
 * georrous6/bitonic-sort-mpi parallel_sort_omp.c:61).  The library calls them back from no call
 * site of the program; their calls per rank, fitted over the runs, put the odd ranks' comparator
 * on one process, where no run called it: the model missed its one-process runs by +95 % in ops.
 * Now 0 there.  usage: qsortparity n */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int ascending(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

static int descending(const void *a, const void *b)
{
    return *(const int *)b - *(const int *)a;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = argc > 1 ? atoi(argv[1]) : 16384;
    int *a = malloc(sizeof(int) * (size_t)n);
    long s = 0, total = 0;
    srand(rank + 1);
    for (int i = 0; i < n; i++)
        a[i] = rand() % 1000000;
    qsort(a, (size_t)n, sizeof(int), rank % 2 == 0 ? ascending : descending);
    for (int i = 0; i < n; i += 97)
        s += a[i];
    MPI_Reduce(&s, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("checksum %ld\n", total);
    free(a);
    MPI_Finalize();
    return 0;
}
