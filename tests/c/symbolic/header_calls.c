/* Calls of this file's functions in loop headers: a while condition, a for's initialization,
 * condition and step (the step's callee works in proportion to its argument), and a do-while
 * condition (tested once per iteration, not once more per entry).  argv: n */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static long spent;

static int more(int i, int n)
{
    int k;
    for (k = 0; k < 10; k++)
        spent += k;
    return i < n;
}

static int start(int n)
{
    int k;
    for (k = 0; k < n; k++)
        spent += 1;
    return 0;
}

static int next(int i, int width)
{
    int k;
    for (k = 0; k < width; k++)
        spent += 2;
    return i + 1;
}

int main(int argc, char **argv)
{
    int rank, size, i = 0, n = argc > 1 ? atoi(argv[1]) : 16;
    long total = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    while (more(i, n / size))
        i++;
    for (i = start(n); more(i, n); i = next(i, 3))
        total += i;
    i = 0;
    do {
        i++;
    } while (more(i, 2 * n));
    if (rank == 0)
        printf("%ld %ld %d\n", total, spent, i);
    MPI_Finalize();
    return 0;
}
