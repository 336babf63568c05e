/* A function every thread of a parallel region calls (NPB EP's vranlc): its blocks are not
 * lexically in the region, but a team runs them, so their operations per thread are their total
 * over T (the fit-free prediction on two threads was twice too slow).  argv: n */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static double work(const double *a, long lo, long hi)
{
    double s = 0.0;
    for (long i = lo; i < hi; i++)
        s += a[i] * 0.5 + 1.0;
    return s;
}

int main(int argc, char **argv)
{
    long n = atol(argv[1]);
    double *a = malloc(sizeof(double) * (size_t)n), total = 0.0;
    for (long i = 0; i < n; i++)
        a[i] = (double)(i % 10);
#pragma omp parallel reduction(+ : total)
    {
        long t = omp_get_thread_num(), T = omp_get_num_threads();
        total += work(a, t * n / T, (t + 1) * n / T);
    }
    printf("%.1f\n", total);
    free(a);
    return 0;
}
