/* The team size set by a num_threads() clause, not by OMP_NUM_THREADS (Benchmarks Game
 * spectralnorm: `#pragma omp parallel num_threads(GetThreadCount())`, the CPUs of the affinity
 * mask).  The trace said T = omp_get_max_threads() at the start, so with OMP_NUM_THREADS=1 every
 * run claimed one thread: the per-thread loop was "NO form within 5 %" and the model was +50 %
 * off its own runs.
 * Usage: numthreads N THREADS */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = atoi(argv[1]), t = atoi(argv[2]);
    double *a = malloc(n * sizeof(double)), s = 0;
    #pragma omp parallel num_threads(t)
    {
        int id = omp_get_thread_num(), nt = omp_get_num_threads();
        int chunk = n / nt, b = id * chunk, e = (id == nt - 1) ? n : b + chunk;
        for (int i = b; i < e; i++)
            a[i] = i * 0.5;
        #pragma omp for reduction(+ : s)
        for (int i = 0; i < n; i++)
            s += a[i];
    }
    printf("%g\n", s);
    free(a);
    return 0;
}
