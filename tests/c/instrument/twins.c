/* Leaf functions called through their twins (instrument/collect/twins.py): one defined after its
   caller (its twin's prototype goes before the caller), a static one every call of which goes to
   the twin (-Wunused-function stays quiet), one without arguments, and two that get no twin: one
   with a static local (a copy would have its own) and one naming __func__. */
#include <stdio.h>
#include <stdlib.h>

static double scale(const double *a, int n, double s);

static int zero(void)
{
    int s = 0;
    for (int i = 0; i < 3; i++)
        s += i;
    return s - 3;
}

int count_seen(int x)
{
    static int seen;
    for (int i = 0; i < x % 3; i++)
        seen += 1;
    return seen;
}

const char *where(int x)
{
    return x > 2 ? __func__ : "none";
}

double run(const double *a, int n)
{
    double t = 0.0;
    for (int i = 0; i < n; i++)
        t += scale(a, i, 0.5) + zero() + count_seen(i);
    printf("%s %s\n", where(n), where(1));
    return t;
}

static double scale(const double *a, int n, double s)
{
    double t = 0.0;
    for (int i = 0; i < n; i++)
        t += s * a[i];
    return t;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10;
    double *a = malloc((size_t)n * sizeof *a);
    for (int i = 0; i < n; i++)
        a[i] = i;
    printf("%g\n", run(a, n));
    free(a);
    return 0;
}
