/* Hooks that start at one offset: a call (not straight-line, so it is announced) that begins the
 * condition of a ?:, the condition of an if and the size of an allocation.  Each hook must wrap
 * the whole expression, not only the call (f(s) is 21 here: true, where 0 or 1 would not be), and
 * a top-level comma or a compound literal in a condition stays one macro argument; a condition with
 * a preprocessor line inside is left unwrapped.  The program prints 111124 111124. */
#include <stdio.h>
#include <stdlib.h>

struct pair {
    int a, b;
};

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
    s += (struct pair){s, 2}.a > 1000 ? 1000000 : 0;
    if (f(s) > 1)
        s += 100;
    if (i = s, f(i) > 1)
        s += 1000;
    if ((struct pair){s, 2}.a > 1)
        s += 10000;
    if (s > 1
#ifdef NESTING_NEVER
        && s < 0
#endif
    )
        s += 100000;
    p = malloc(g(4) * sizeof(double));
    p[0] = s;
    printf("%d %g\n", s, p[0]);
    free(p);
    return 0;
}
