/* Loops bounded by sizes compiled in (issue 19): -DN=..., a header's data-set size, a macro of a
 * macro, a constant macro, a bound that begins with a macro (M - 1), and a kernel given the size
 * through a local (int n = N), and bounds written with function-like macros (PolyBench's
 * _PB_N - 1, which expands to the kernel's parameter n). */
#include <stdio.h>
#include "sizes.h"

static double a[M];
static double b[NX];

static double kernel(int n, double *x)
{
    double s = 0.0;
    for (int r = 0; r < REPS; r++)
        for (int i = 0; i < n; i++) {
            x[i] = x[i] * 0.5 + i;
            s += x[i];
        }
    for (int i = 1; i < PB_N - 1; i++)
        s += x[i] * 0.25;
    for (int i = 0; i < HALF_OF(n + 2); i++)
        s -= x[i];
    return s;
}

int main(void)
{
    int n = N;
    double s = 0.0;
    for (int i = 0; i < M; i++)
        a[i] = i;
    s += kernel(n, a);
    for (int i = 0; i < M - 1; i++)  /* a macro that begins the bound, not all of it (NPB IS) */
        s += a[i + 1] - a[i];
    for (int i = 0; i < N; i++)
        for (int j = 0; j < i; j++)
            s += a[j];
    for (int k = 0; k < NX; k++) {
        b[k] = k;
        s += b[k] * (k % 3 == 0 ? 2.0 : 1.0);
    }
    printf("%.6g\n", s);
    return 0;
}
