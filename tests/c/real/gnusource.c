/* A unit that asks for GNU extensions with `#define _GNU_SOURCE` before its first include
 * (Graph500's aml.c: CPU_ZERO/CPU_SET from <sched.h>): perfeq's header comes first in the
 * instrumented file, so it must include no C library header that fixes the feature macros
 * (<string.h> there hid CPU_ZERO: "undefined reference to CPU_ZERO" at the link).  Its loop calls
 * three functions in turn from a parallel region and from serial code (XSBench's lookups: each
 * call of such a loop entered its context through the library), and qsort calls a comparator
 * back: the same output, each context with its calls.
 * Usage: gnusource N */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

static double *table;

double pick(unsigned *seed, int n)
{
    double x = 0;
    for (int i = 0; i < 2; i++) {
        *seed = *seed * 1103515245u + 12345u;
        x += (double)(*seed % (unsigned)n);
    }
    return x;
}

double scale(double x, int m)
{
    double s = 0;
    for (int i = 0; i < m; i++)
        s += x * table[i];
    return s;
}

int bucket(double x, int n)
{
    int b = 0;
    for (int i = 1; i < n; i *= 2)
        b += x > i;
    return b;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(0, &set);
    table = malloc(8 * sizeof *table);
    for (int i = 0; i < 8; i++)
        table[i] = i * 0.5;
    double sum = 0;
    long buckets = 0;
    #pragma omp parallel for reduction(+:sum, buckets)
    for (int i = 0; i < n; i++) {
        unsigned seed = (unsigned)i;
        double x = pick(&seed, n);
        sum += scale(x, 8);
        buckets += bucket(x, n);
    }
    double *v = malloc((size_t)n * sizeof *v);
    unsigned seed = 7;
    for (int i = 0; i < n; i++) {
        v[i] = pick(&seed, n);
        sum += scale(v[i], 4);
        buckets += bucket(v[i], n);
    }
    qsort(v, (size_t)n, sizeof *v, cmp);
    printf("%d %.1f %ld %.1f %.1f\n", CPU_COUNT(&set), sum, buckets, v[0], v[n - 1]);
    free(v);
    free(table);
    return 0;
}
