/* Statements in the braces of omp master / omp single inside a parallel region (ParRes Kernels'
   OpenMP kernels: `#pragma omp master { nthread = omp_get_num_threads(); if (...) ... }`, and
   `#pragma omp master { t0 = wtime(); }`).  The braces' statements joined the block around them,
   counted once per thread; the block after an if at the end of the braces had its counter inside
   them, so what every thread ran after the braces was counted once (calls +12 % at T = 2).
   Usage: masterbraces N */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

static double stamp(int k)
{
    double s = 0.0;
    for (int i = 0; i < k; i++)
        s += 0.5 * i;
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 64, threads = 0, errors = 0;
    double t0 = 0.0, sum = 0.0;
#pragma omp parallel reduction(+ : sum)
    {
#pragma omp master
        {
            threads = omp_get_num_threads();
            t0 = stamp(n);
            if (threads < 1)
                errors = 1;
            else
                t0 += 1.0;
        }
        sum += stamp(n / 2);
#pragma omp for
        for (int i = 0; i < n; i++)
            sum += 1.0 / (1.0 + i);
#pragma omp single
        {
            t0 = stamp(4) - t0;
        }
    }
    printf("errors %d sum %.10f t %.3f\n", errors, sum, t0);
    return 0;
}
