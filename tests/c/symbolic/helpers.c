/* Arrays that come from helper functions, for the cache rule's footprints.  argv: n
 *   new_vector: one allocation, returned: a vector of n doubles;
 *   use_scratch: allocates scratch space but returns its argument: not a new array;
 *   grown: allocates in a loop: its size is the last iteration's, unknown to the rule;
 *   dot(a, a) reads one array, dot(a, b) two. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double *new_vector(int count)
{
    double *v = calloc((size_t)count, sizeof(double));
    if (v == NULL)
        abort();
    return v;
}

static double *use_scratch(double *in, int count)
{
    double *scratch = malloc((size_t)count * sizeof(double));
    int i;
    for (i = 0; i < count; i++)
        scratch[i] = in[i];
    for (i = 0; i < count; i++)
        in[i] = 0.5 * scratch[i];
    free(scratch);
    return in;
}

static double *grown(int count)
{
    double *last = NULL;
    int i;
    for (i = 1; i <= 3; i++) {
        free(last);
        last = malloc((size_t)(i * count) * sizeof(double));
    }
    return last;
}

static double dot(const double *x, const double *y, int count)
{
    double s = 0.0;
    int i;
    for (i = 0; i < count; i++)
        s += x[i] * y[i];
    return s;
}

static double total(const double *w, int count)
{
    double s = 0.0;
    int i;
    for (i = 0; i < count; i++)
        s += w[i];
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100, i;
    double *a, *b, *w, *g, s;
    MPI_Init(&argc, &argv);
    a = new_vector(n);
    b = new_vector(2 * n);
    for (i = 0; i < n; i++) {
        a[i] = i;
        b[i] = 1.0;
    }
    s = dot(a, a, n) + dot(a, b, n);
    w = use_scratch(a, n);
    g = grown(n);
    for (i = 0; i < 3 * n; i++)
        g[i] = i;
    s += total(w, n) + total(g, 3 * n);
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    printf("%g\n", s);
    free(a);
    free(b);
    free(g);
    MPI_Finalize();
    return 0;
}
