/* Leaf functions called in parallel constructs: one that records no values is called through its
 * twin with the calling thread's slab (PERFEQ_LEAF_ARGS_MT in a combined parallel loop whose body
 * counts nothing itself, PERFEQ_LEAF_ARGS_L where the body declared its slab), loops whose bounds
 * are its parameters' included (around: a neighbour count, r - 1 to r + 1, as a game of life's per
 * cell: announced before, 2.5-2.9x); one whose loop's bound is recorded is announced as before.  Counts equal the announced calls' (-DPERFEQ_NO_LEAVES),
 * and the trace's team is the threads' (it was 1 when a parallel loop only called functions).
 * Rodinia particlefilter's roundDouble in its likelihood loop: 8x slower instrumented before.
 * Usage: teamleaf N */
#include <stdio.h>
#include <stdlib.h>

double round_half(double v)
{
    int n = (int)v;
    if (v - n < 0.5)
        return n;
    return n + 1;
}

static double clampd(double v)
{
    if (v > 100.0)
        return 100.0;
    return v;
}

static double sum_to(int m)
{
    double s = 0;
    for (int i = 0; i < m; i++)
        s += i;
    return s;
}

static int around(const double *x, int n, int r)
{
    int k = 0;
    for (int i = r - 1; i <= r + 1; i++)
        if (i >= 0 && i < n && x[i] > 50.0)
            k++;
    return k;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    double *x = malloc(n * sizeof *x), s = 0, t = 0, u = 0;
    for (int i = 0; i < n; i++)
        x[i] = (i % 1000) * 0.37;
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < n; i++)
        s += round_half(x[i]) + round_half(x[i] * 0.5);
#pragma omp parallel reduction(+ : t, u)
    {
#pragma omp for
        for (int i = 0; i < n; i++) {
            if (x[i] > 50.0)
                t += clampd(x[i] * 3.0);
            else
                t += 1.0;
        }
#pragma omp for
        for (int i = 0; i < 64; i++)
            u += sum_to(i % 7) + around(x, n, i);
    }
    printf("%g %g %g\n", s, t, u);
    free(x);
    return 0;
}
