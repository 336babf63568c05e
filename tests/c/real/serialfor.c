/* An orphaned `omp for` in a function called from serial code (NPB SP's txinvr and add, which adi()
 * calls outside any parallel region): one thread runs all its iterations, so they are not shared
 * out over T (the model halved them on two threads: SP -2.5 % at 8x).  The same function is also
 * called inside a parallel region, where the team shares them.  argv: n */
#include <stdio.h>
#include <stdlib.h>

static double a[4096];

static void scale(int n, double f)
{
    int i;
#pragma omp for
    for (i = 0; i < n; i++)
        a[i] = a[i] * f + 1.0;
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]), step;
    double s = 0.0;
    for (step = 0; step < 3; step++)
        scale(n, 0.5); /* serial: every iteration on this thread */
#pragma omp parallel
    scale(n, 0.25); /* in a team: shared */
    for (int i = 0; i < n; i++)
        s += a[i];
    printf("%.3f\n", s);
    return 0;
}
