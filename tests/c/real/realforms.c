/* Constructs of real codes: sizes in a struct set by getopt in a helper, unary minus in a loop bound,
 * OpenMP default(none), a struct passed by value, a doubling loop, two variables in a step.
 * Sizes are multiples of 7, so that the share of elements span() adds is exactly 4/7. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define R 2

typedef struct {
    int nx;
    int steps;
    int verbose;
} Command;

typedef struct {
    double lo, hi;
} Range;

static Command parse(int argc, char **argv)
{
    Command cmd = {16, 2, 0};
    int opt;
    while ((opt = getopt(argc, argv, "n:s:v")) != -1) {
        switch (opt) {
        case 'n': cmd.nx = atoi(optarg); break;
        case 's': cmd.steps = atoi(optarg); break;
        case 'v': cmd.verbose = 1; break;
        default: exit(2);
        }
    }
    return cmd;
}

static double span(Range r, const double *a, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        if (a[i] >= r.lo && a[i] < r.hi)
            s += a[i];
    return s;
}

static double stencil(const double *a, double *b, int n)
{
    double total = 0.0;
#pragma omp parallel for default(none) shared(a, b, n) reduction(+ : total)
    for (int i = R; i < n - R; i++) {
        double s = 0.0;
        for (int j = -R; j <= R; j++)
            s += a[i + j];
        b[i] = s / (2 * R + 1);
        total += b[i];
    }
    return total;
}

static int reverse(double *a, int n)
{
    int swaps = 0;
    for (int i = 0, j = n - 1; i < j; i++, j--) {
        double t = a[i];
        a[i] = a[j];
        a[j] = t;
        swaps++;
    }
    return swaps;
}

static long doubling(int n)
{
    long levels = 0;
    for (int s = 1; s < n; s *= 2)
        levels += n / s;
    return levels;
}

int main(int argc, char **argv)
{
    Command cmd = parse(argc, argv);
    int n = cmd.nx;
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    Range r = {0.25, 0.75};
    double sum = 0.0;
    for (int i = 0; i < n; i++)
        a[i] = (double)(i % 7) / 7.0;
    for (int t = 0; t < cmd.steps; t++) {
        sum += stencil(a, b, n);
        sum += span(r, a, n);
        sum += reverse(a, n);
    }
    printf("%.6f %ld\n", sum, doubling(n));
    free(a);
    free(b);
    return 0;
}
