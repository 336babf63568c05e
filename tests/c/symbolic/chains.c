/* Loop-carried accumulations (chained flops) and look-alikes that are not.  Each rank owns n values;
 * the lines marked "chain" extend a floating-point accumulation once per iteration, the lines marked
 * "free" do not (scalar set afresh in the body, integer, array element, pointer target).
 * (C99: a declaration in a for header.)
 * argv: n [reps] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double dot(const double *x, const double *y, int n)
{
    double s = 0.0;
    int i;
    for (i = 0; i < n; i++)
        s += x[i] * y[i]; /* chain */
    return s;
}

static double forms(const double *x, double *z, int n, double *out, long *count)
{
    double a = 0.0, b = 1.0, c = 0.0;
    float f = 0.0f;
    long k = 0;
    int i;
    for (i = 0; i < n; i++) {
        double t = x[i];
        t += 1.0;              /* free: t is the body's own */
        a = a + x[i];          /* chain */
        b = 0.5 * b;           /* chain */
        c -= t;                /* chain */
        f += (float)x[i];      /* chain */
        k += i;                /* free: integer */
        z[i] += x[i];          /* free: array element */
        *out += t;             /* free: through a pointer */
    }
    *count = k;
    return a + b + c + f;
}

static double rows(const double *x, int n)
{
    double sum = 0.0;
    int r, i, w = 8, h = n / 8;
    for (r = 0; r < h; r++) {
        double row = 0.0;
        for (i = 0; i < w; i++)
            row += x[r * w + i]; /* chain, n times */
        sum += 2.0 * row;        /* chain, n / 8 times */
    }
    return sum;
}

/* Accumulations in loop headers; a header's declaration shadows the function's u in its loop only */
static double headers(const double *x, int n)
{
    double u = 0.0, s = 0.0;
    int i;
    for (i = 0; i < n; i++, s += 0.5) {         /* chain in the step, n times */
        for (double u = 0.0; u < 1.0; u += 0.5) /* chain in the step, 2 per entry */
            s += x[i];                          /* chain, 2n */
        u += x[i];                              /* chain, n: the function's u */
    }
    return u + s;
}

int main(int argc, char **argv)
{
    int rank, n = argc > 1 ? atoi(argv[1]) : 64, reps = argc > 2 ? atoi(argv[2]) : 1, r, i;
    double *x, *y, *z, out = 0.0, total = 0.0, all;
    long count = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    x = malloc((size_t)n * sizeof(double));
    y = malloc((size_t)n * sizeof(double));
    z = malloc((size_t)n * sizeof(double));
    for (i = 0; i < n; i++) {
        x[i] = (i % 7) * 0.25;
        y[i] = (i % 5) - 2.0;
        z[i] = 0.0;
    }
    for (r = 0; r < reps; r++) {
        total += dot(x, y, n);
        total += forms(x, z, n, &out, &count);
        total += rows(x, n);
        total += headers(x, n);
    }
    MPI_Reduce(&total, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("%.6f %.3f %ld\n", all, out + z[n - 1], count);
    free(x);
    free(y);
    free(z);
    MPI_Finalize();
    return 0;
}
