/* Hooks that start at one offset: a call (not straight-line, so it is announced) that begins the
 * condition of a ?:, the condition of an if and the size of an allocation.  Each hook must wrap
 * the whole expression, not only the call: the program prints 124, 124 either way. */
#include <stdio.h>
#include <stdlib.h>

static int f(int x)
{
    int k, r = 0;
    for (k = 0; k < x; k++)
        r += 1;
    return r - 3;
}

static size_t g(int x)
{
    size_t k, r = 0;
    for (k = 0; k < (size_t)x; k++)
        r += 1;
    return r;
}

int main(void)
{
    int i, s = 0;
    double *p;
    for (i = 0; i < 6; i++)
        s += f(i) > 0 ? 10 : 1;
    if (f(s) >= 0)
        s += 100;
    p = malloc(g(4) * sizeof(double));
    p[0] = s;
    printf("%d %g\n", s, p[0]);
    free(p);
    return 0;
}
