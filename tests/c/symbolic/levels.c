/* A multigrid level hierarchy as NPB MG keeps it: the finest level's size is read from an input
   file into an element of an array at a variable index (&nx[lt]), the coarser levels' sizes follow
   by a recurrence (nx[k] = nx[k + 1] / 2), each level's extent by a loop (m1[k] = nx[k] + 2), and
   the finest extent comes back through a pointer from a function called twice.  The smoother runs
   to those extents inside a loop over the levels.

   Usage: levels INPUT, INPUT holding "lt n steps" (n = 2^lt). */
#include <stdio.h>
#include <stdlib.h>

#define MAXLEVEL 12

static int nx[MAXLEVEL + 1], m1[MAXLEVEL + 1];
static int lt;

static void setup(int *n, int top)
{
    int k;
    for (k = top - 1; k >= 1; k--)
        nx[k] = nx[k + 1] / 2;
    for (k = 1; k <= top; k++)
        m1[k] = nx[k] + 2;
    *n = nx[top] + 2;
}

static double smooth(const double *u, int n1)
{
    double s = 0.0;
    int i, j;
    for (j = 1; j < n1 - 1; j++)
        for (i = 1; i < n1 - 1; i++)
            s += 0.5 * u[j * n1 + i] + 1.0;
    return s;
}

int main(int argc, char **argv)
{
    FILE *fp;
    int k, n1, it, steps = 1;
    double *u, s = 0.0;

    if (argc < 2)
        return 1;
    fp = fopen(argv[1], "r");
    if (fp == NULL)
        return 1;
    fscanf(fp, "%d", &lt);
    fscanf(fp, "%d", &nx[lt]);
    fscanf(fp, "%d", &steps);
    fclose(fp);
    if (lt < 1 || lt > MAXLEVEL)
        return 1;

    setup(&n1, lt);
    u = calloc((size_t)n1 * n1, sizeof(double));
    for (it = 0; it < steps; it++) {
        for (k = lt; k >= 2; k--)
            s += smooth(u, m1[k]);
        s += smooth(u, n1);
    }
    setup(&n1, lt);
    s += smooth(u, n1);
    printf("%d %.1f\n", n1, s);
    free(u);
    return 0;
}
