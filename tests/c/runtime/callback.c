/* callback.c -- perfeq runtime test: a function entered through a library callback (qsort's
 * comparator: no call announced in the caller's frame), directly from two call sites in a row,
 * through a function pointer, and through qsort from main's own frame, in turn, so that the
 * entry's fast paths (the caller's last child, announced or not) would show a confusion of the
 * contexts.  Then qsort from main's frame again with a call of a function without hooks announced
 * and pending (a straight-line function of another unit: nothing consumes its announcement), which
 * the comparator's entries must pass over as the library does (an unknown site).  Prints the
 * comparisons qsort made from sort(), from pair_sort(), from main() and from main() after the call.
 * Usage: callback N
 */
#include <stdio.h>
#include <stdlib.h>
#include "perfeq_rt.h"
static const perfeq_func_t perfeq__funcs[] = { {"main", 1, 0, 0, 0}, {"cmp", 1, 0, 0, 0}, {"sort", 1, 0, 0, 0}, {"pair_sort", 1, 0, 0, 0} };
static perfeq_unit_t perfeq__unit = { PERFEQ_ABI_VERSION, "callback.c", NULL, NULL, 4, perfeq__funcs, 0, 0, 0, 0 };
#line 1 "callback.c"
static long ncmp;

static int cmp(const void *a, const void *b)
{
    PERFEQ_FUNC_BEGIN(perfeq__unit, 1)
    double x = *(const double *)a, y = *(const double *)b;
    PERFEQ_BLOCK(0); ncmp++;
    return x < y ? -1 : x > y;
}

/* no hooks, as a straight-line function of another unit has none */
static double hookless(const double *v)
{
    return v[0] + 1.0;
}

static void sort(double *v, int n)
{
    PERFEQ_FUNC_BEGIN(perfeq__unit, 2)
    PERFEQ_BLOCK(0); qsort(v, (size_t)n, sizeof *v, cmp);
}

static void pair_sort(double *v)
{
    PERFEQ_FUNC_BEGIN(perfeq__unit, 3)
    PERFEQ_BLOCK(0); qsort(v, 2, sizeof *v, cmp);
}

int main(int argc, char **argv)
{
    PERFEQ_FUNC_BEGIN(perfeq__unit, 0)
    int (*through)(const void *, const void *) = cmp;
    int n = argc > 1 ? atoi(argv[1]) : 100, i, s = 0;
    long sorted, paired, direct = 0, stale = 0, before;
    double *v = malloc((size_t)n * sizeof *v), pair[2];
    PERFEQ_BLOCK(0);
    for (i = 0; i < n; i++)
        v[i] = (double)((i * 7919) % n);
    PERFEQ_CALLED(perfeq__unit, 1, "sort", sort(v, n));
    sorted = ncmp;
    ncmp = 0;
    for (i = 1; i < n; i++) {
        pair[0] = v[i];
        pair[1] = v[i - 1];
        s += PERFEQ_CALLED(perfeq__unit, 2, "cmp", cmp(&v[i - 1], &v[i]));
        s += PERFEQ_CALLED(perfeq__unit, 5, "cmp", cmp(&v[i], &v[i - 1])); /* the same but for the site */
        PERFEQ_CALLED(perfeq__unit, 4, "pair_sort", pair_sort(pair));
        s += PERFEQ_CALLED(perfeq__unit, 3, NULL, through(&v[i], &v[i - 1]));
        before = ncmp;
        qsort(pair, 2, sizeof *pair, cmp); /* from main's own frame, right after its site 3 */
        direct += ncmp - before;
        pair[0] = PERFEQ_CALLED(perfeq__unit, 6, "hookless", hookless(pair));
        before = ncmp;
        qsort(pair, 2, sizeof *pair, cmp); /* the announcement of hookless() pending */
        stale += ncmp - before;
    }
    paired = ncmp - direct - stale - 3 * (n - 1);
    printf("%ld %ld %ld %ld %d\n", sorted, paired, direct, stale, s);
    free(v);
    return 0;
}
