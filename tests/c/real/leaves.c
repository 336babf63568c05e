/* Leaf functions (they call no function of the program) called per element: a distance over d
 * features from two call sites, a search with an early return, a straight-line helper inside a
 * leaf, a leaf also called through a pointer and in an argument of another leaf call, one
 * called inside an OpenMP parallel loop, and a function handing a comparator to qsort (no leaf).  Each leaf call site of serial code counts into its
 * caller's context; the trace shows each as the caller's child, as if it had its own. */
#include <stdio.h>
#include <stdlib.h>

static double sq(double x) { return x * x; }

static double dist(const double *a, const double *b, int d)
{
    double s = 0.0;
    for (int k = 0; k < d; k++)
        s += sq(a[k] - b[k]);
    return s;
}

static int find(const double *cdf, int n, double u)
{
    for (int i = 0; i < n; i++)
        if (cdf[i] >= u)
            return i;
    return n - 1;
}

static int twice(int x) { int y = x; if (y < 0) y = -y; return 2 * y; }

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* calls only qsort, which calls cmp back: not a leaf, or cmp would hang under its caller */
static void sort_vals(double *v, int n)
{
    for (int i = 0; i < n; i++)
        v[i] = -v[i];
    qsort(v, n, sizeof *v, cmp);
}

static int nearest(const double *p, const double *centres, int k, int d)
{
    int best = 0;
    double min = dist(p, centres, d);
    for (int c = 1; c < k; c++) {
        double e = dist(p, centres + c * d, d);
        if (e < min) {
            min = e;
            best = c;
        }
    }
    return best;
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]), d = 8, k = 5;
    double *pts = malloc(sizeof(double) * n * d), *centres = malloc(sizeof(double) * k * d);
    double *cdf = malloc(sizeof(double) * n);
    for (int i = 0; i < n * d; i++) pts[i] = (i * 37 % 101) / 101.0;
    for (int i = 0; i < k * d; i++) centres[i] = (i * 13 % 17) / 17.0;
    double acc = 0.0;
    for (int i = 0; i < n; i++) {
        acc += i;
        cdf[i] = acc;
    }
    long hist = 0, found = 0;
    for (int i = 0; i < n; i++)
        hist += nearest(pts + i * d, centres, k, d);
    for (int i = 0; i < n; i++)
        found += find(cdf, n, cdf[n - 1] * ((i * 7919) % n) / n);
    int (*through)(int) = twice;
    long t = 0;
    for (int i = 0; i < n; i++)
        t += through(i) + twice(twice(i));
    sort_vals(cdf, n);
    double par = 0.0;
#pragma omp parallel for reduction(+ : par)
    for (int i = 0; i < n; i++)
        par += dist(pts + i * d, centres, d);
    printf("%ld %ld %ld %.6f %g\n", hist, found, t, par, cdf[0]);
    free(pts);
    free(centres);
    free(cdf);
    return 0;
}
