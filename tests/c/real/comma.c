/* Assignments joined by the comma operator (`offset = info[0], rows = info[1];` in a worker of
 * LLNL's mpi_heat2D style, `lo = n / 3, hi = n - n / 7;`) were not recorded: each bound was fitted
 * (the two floors here are not a form of n; 'rows' was said to be "assigned only inside loops").
 * Usage: comma N M */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n, m, i, j, lo, hi;
    n = atoi(argv[1]), m = atoi(argv[2]);
    lo = n / 3, hi = n - n / 7;
    double s = 0;
    for (i = lo; i < hi; i++)
        for (j = 0; j < m; j++)
            s += i * j;
    printf("%g\n", s);
    return 0;
}
