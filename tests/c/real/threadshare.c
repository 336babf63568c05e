/* Each thread's share of the rows from arrays filled before the parallel region (ParRes Kernels'
   OpenMP Synch_p2p: for (i = start[TID]; i <= end[TID]; i++)).  The bounds are array elements, so
   the trips per entry are fitted, and no form had T in it: the loop was the first run's constant
   (ops -75 % at 4x on 2 threads); n / T is a form now when the runs' thread counts differ.
   Usage: threadshare N */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 64;
    int start[64], end[64], threads = omp_get_max_threads();
    for (int t = 0; t < threads; t++) {
        start[t] = t * (n / threads);
        end[t] = (t + 1) * (n / threads) - 1;
    }
    double sum = 0.0;
#pragma omp parallel reduction(+ : sum)
    {
        int tid = omp_get_thread_num();
        for (int step = 0; step < 4; step++)
            for (int i = start[tid]; i <= end[tid]; i++)
                sum += 1.0 / (1.0 + i + step);
    }
    printf("sum %.10f\n", sum);
    return 0;
}
