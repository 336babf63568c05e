/* Sizes that are data to perfeq, fitted from two training sizes (issue 19): a grid side 2^lt + 2
 * with ghost points, counted in a loop from a level count lt (NPB MG's nx[k] = nx[k+1] / 2 chain),
 * and the interior points n - 2 of a size n, counted one by one.  No c * form is exact at both
 * sizes (34 / 32 of 2^lt is 3 % off at lt = 6, 198 / 200 of n is 1 % off at n = 100, and was
 * taken); the offsets are, and the model is exact at 8x. */
#include <stdio.h>
#include <stdlib.h>

/* read in the counting loops below, so that their counts are data (since session 27 perfeq counts
 * s *= 2 and m++ in a loop that does them unconditionally) */
static int zero[64];

static int side(int lt)
{
    int s = 1;
    for (int k = 0; k < lt; k++)
        if (zero[k % 64] == 0)
            s *= 2;
    return s + 2;
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
    int lt = atoi(argv[1]), n = atoi(argv[2]), n1 = side(lt), m = 0;
    double s = 0.0;
    for (int i = 1; i < n - 1; i++)
        if (zero[i % 64] == 0)
            m++;
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
