/* Ifs a compiler turns into conditional moves (their arms only assign locals), in serial code and in
   an OpenMP loop: their then and else blocks are counted in the condition, without a branch (a
   counter in an arm kept the if a branch: Rodinia k-means' nearest-centre test, `if (dist <
   min_dist) { min_dist = dist; index = i; }`, unpredictable, made the instrumented run 2.9x the
   plain one).  Usage: selects N */
#include <stdio.h>
#include <stdlib.h>

static int nearest(const float *d, int k, float *best)
{
    int index = 0, i;
    float min = 1e30f;
    for (i = 0; i < k; i++) {
        float x = d[i];
        if (x < min) {
            min = x;
            index = i;
        }
    }
    *best = min;
    return index;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 64, k = 5, i, j, hits = 0;
    float *d = malloc((size_t)n * k * sizeof *d), best, total = 0;
    unsigned seed = 7;
    for (i = 0; i < n * k; i++) {
        seed = seed * 1103515245u + 12345u;
        d[i] = (float)(seed >> 8 & 0xffff);
    }
    for (i = 0; i < n; i++) {
        hits += nearest(d + (size_t)i * k, k, &best);
        total += best;
    }
    long odd = 0;
#pragma omp parallel for reduction(+ : odd) private(j)
    for (i = 0; i < n; i++) {
        long s = 0, t;
        for (j = 0; j < k; j++) {
            if (d[(size_t)i * k + j] > 30000.0f) t = 1; else t = 2;
            s += t;
        }
        odd += s;
    }
    printf("%d %g %ld\n", hits, total, odd);
    free(d);
    return 0;
}
