/* NPB FT's sizes: a 2-D dims[3][3] filled by a loop over its rows, its rows passed as int d[3],
 * the stage count from ilog2 of a row's element kept in a local logd[3]. */
#include <stdio.h>
#include <stdlib.h>

static int dims[3][3];

static int ilog2(int n)
{
    int nn, lg;
    if (n == 1)
        return 0;
    lg = 1;
    nn = 2;
    while (nn < n) {
        nn = nn << 1;
        lg++;
    }
    return lg;
}

static void setup(int nx, int ny, int nz)
{
    for (int i = 0; i < 3; i++) {
        dims[i][0] = nx;
        dims[i][1] = ny;
        dims[i][2] = nz;
    }
}

static double sweep(int d[3], const double *x)
{
    int logd[3];
    double s = 0.0;
    for (int i = 0; i < 3; i++)
        logd[i] = ilog2(d[i]);
    for (int l = 1; l <= logd[0]; l++)
        for (int k = 0; k < d[2]; k++)
            for (int j = 0; j < d[1]; j++)
                s += x[j] * l + k;
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 16;
    double *x = calloc(n, sizeof *x);
    setup(n, n, n / 2);
    for (int i = 0; i < dims[2][0]; i++)
        x[i] = i;
    printf("%g\n", sweep(dims[0], x) + sweep(dims[1], x));
    free(x);
    return 0;
}
