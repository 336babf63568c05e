/* Sizes kept in globals set once in main and read by the kernels (NPB: firstrow, lastrow,
 * lastcol), and a local that hides a global of the same name. */
#include <stdio.h>
#include <stdlib.h>

int firstrow, lastrow, width;
static double grid[4096];

static double kernel(void)
{
    double s = 0.0;
    for (int j = firstrow; j <= lastrow; j++)
        for (int k = 0; k < width; k++)
            s += grid[(j * 7 + k) % 4096];
    return s;
}

static double hidden(int n)
{
    int lastrow = n / 2;   /* a local: not the global */
    double s = 0.0;
    for (int j = 0; j < lastrow; j++)
        s += grid[j % 4096];
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10;
    firstrow = 1;
    lastrow = n;
    width = 2 * n;
    for (int i = 0; i < 4096; i++)
        grid[i] = i % 13;
    printf("%.6g %.6g\n", kernel(), hidden(n));
    return 0;
}
