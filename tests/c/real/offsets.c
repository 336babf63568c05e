/* Sizes the instrumenter cannot follow, fitted from two training sizes (issue 19): a level count
 * lt whose grid side 2^lt + 2 (with ghost points) reaches the loops through a pointer argument, as
 * NPB MG's setup(&n1, ..., lt) does, and the interior points n - 2 of a size n, also set through a
 * pointer.  No c * form is exact at both sizes (34 / 32 of 2^lt is 3 % off at lt = 6, 198 / 200 of n
 * is 1 % off at n = 100, and was taken); the offsets are, and the model is exact at 8x. */
#include <stdio.h>
#include <stdlib.h>

static void setup(int *n1, int lt)
{
    *n1 = (1 << lt) + 2;
}

static void interior(int *m, int n)
{
    *m = n - 2;
}

static double sweep(double *u, int n1)
{
    double s = 0.0;
    for (int i = 1; i < n1 - 1; i++)
        s += 0.5 * (u[i - 1] + u[i + 1]);
    return s;
}

int main(int argc, char **argv)
{
    int lt = atoi(argv[1]), n = atoi(argv[2]), n1, m;
    double s = 0.0;
    setup(&n1, lt);
    interior(&m, n);
    double *u = calloc((size_t)n1, sizeof(double));
    for (int i = 0; i < n1; i++)
        u[i] = i % 7;
    for (int it = 0; it < 3; it++)
        s += sweep(u, n1);
    for (int i = 0; i < m; i++)
        s += u[i % n1] * 0.25;
    printf("%.3f\n", s);
    free(u);
    return 0;
}
