/* qsort's comparator, called back about (n / P) log2(n / P) times on each rank (parallel-etudes'
 * mpi-merge-sort sorts its block so): trained on 1 and 2 processes, the calls were fitted as a line
 * in floor(n / P), no form of (n / P) log(n / P) being tried (ops -9.4 % at 8x on one process,
 * -5.2 % on two).  Usage: qsortcb N */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
static int compare(const void *a, const void *b)
{
    const int ai = *(const int *)a, bi = *(const int *)b;
    if (ai < bi) return -1;
    else if (ai == bi) return 0;
    else return 1;
}
int main(int argc, char **argv)
{
    int n = atoi(argv[1]), rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    n = n / size;                          /* each rank sorts its block */
    int *v = malloc(n * sizeof *v);
    srand(1 + rank);
    for (int i = 0; i < n; i++) v[i] = rand();
    qsort(v, n, sizeof *v, compare);
    long s = 0;
    for (int i = 1; i < n; i++) s += v[i] >= v[i - 1];
    long t = 0;
    MPI_Reduce(&s, &t, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) printf("%ld\n", t);
    MPI_Finalize();
    return 0;
}
