/* Helpers declared without a prototype (`void fill(), show();`, as LLNL's mpi_heat2D declares
 * inidat, prtdat and update) and given a float (*)[N][N] where their definitions take a float *:
 * legal C (no prototype, no conversion), and the plain build has no diagnostic.  The leaves get no
 * twin: its prototype turned the call into an incompatible-pointer-types diagnostic, an error by
 * default in GCC 14.  `sum` has a prototype and is called before its definition: its twin stays. */
#include <stdio.h>
#include <stdlib.h>
#define N 16

static double sum(const float *u, int n);

int main(int argc, char **argv)
{
    void fill(), show();
    float u[2][N][N];
    int n = argc > 1 ? atoi(argv[1]) : N;
    if (n > N)
        n = N;
    fill(n, u);
    show(n, &u[0][0][0]);
    printf("total %g\n", sum(&u[0][0][0], n * n));
    return 0;
}

void fill(int n, float *u)
{
    for (int i = 0; i < n * n; i++)
        u[i] = (float)i;
}

void show(int n, float *u)
{
    printf("corner %g\n", u[n * n - 1]);
}

static double sum(const float *u, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += u[i];
    return s;
}
