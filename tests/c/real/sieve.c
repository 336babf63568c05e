/* The sieve of Eratosthenes as parallel-etudes omp-sieve.c writes it: for each i with i * i <= n,
 * mark(i, i * i, n + 1) strides by i over [from, to), the range split over the team by hand.  The
 * outer loop was "not a counted for loop" (fitted c sqrt(n)), so the inner stride, its variable,
 * was unknown and the inner loop fitted n / T per entry: +104 % at 8x.  Now i <= isqrt(n), the
 * team's shares are summed over its threads, and the strides sum to a harmonic number.
 * Usage: sieve N */
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>

static long mark(const char *a, int k, int from, int to)
{
    long m = 0;
#pragma omp parallel reduction(+:m)
    {
        const int id = omp_get_thread_num(), nt = omp_get_num_threads();
        const int len = to - from;
        const int lo = from + (int)(((long)len * id) / nt);
        const int hi = from + (int)(((long)len * (id + 1)) / nt);
        for (int x = lo; x < hi; x += k)
            m += a[x];
    }
    return m;
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    char *a = malloc(n + 1);
    long c = 0;
    for (int i = 0; i <= n; i++)
        a[i] = (char)(i % 3 != 0);
    for (int i = 2; ((long)i) * i <= (long)n; i++)
        c += mark(a, i, i * i, n + 1);
    int r = 1;
    while (r * r < n)
        r++;
    printf("%ld %d\n", c, r);
    free(a);
    return 0;
}
