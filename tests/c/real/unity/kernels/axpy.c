/* Kernels of the unity build, included by ../unity.c; scale.h is found beside this file. */
#include "scale.h"

static void axpy(double *y, const double *x, double a, int n)
{
    for (int i = 0; i < n; i++)
        y[i] += a * x[i];
}

static void smooth(double *y, const double *x, int n)
{
    axpy(y, x, SCALE, n);
    for (int i = 1; i < n - 1; i++)
        for (int k = 0; k < 3; k++)
            y[i] = 0.5 * y[i] + 0.25 * (y[i - 1] + y[i + 1]) * k;
}
