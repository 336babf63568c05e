/* A fixed number of parts shared out among the threads by hand, rounded (LLNL CLOMP 1.2,
 * clomp.c:1672-1683: startPidx = (int) nearbyint(thread_id * dparts_per_thread); ...).  The
 * loop over a thread's parts is data to perfeq (nearbyint), PARTS / T per entry: no c / T form was
 * tried, so it was fitted as c n / T ("NO form within 5 %"), +342 % at 8x.  Usage: ompparts N */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define PARTS 16

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100;
    double *a = calloc(PARTS * n, sizeof(double));
#pragma omp parallel
    {
        int tid = omp_get_thread_num(), nt = omp_get_num_threads();
        double d = ((double)PARTS) / ((double)nt);
        int start = (int)nearbyint(((double)tid) * d);
        int end = (int)nearbyint(((double)tid + 1) * d) - 1;
        for (int it = 0; it < 5; it++)
            for (int p = start; p <= end; p++)
                for (long z = 0; z < n; z++)
                    a[p * n + z] += 1.0;
    }
    double s = 0;
    for (long i = 0; i < PARTS * n; i++)
        s += a[i];
    printf("%g\n", s);
    free(a);
    return 0;
}
