/* sites.c -- perfeq runtime test: one function called in turn from three sites of one caller, so
 * that a lookup by (caller context, callee, site) that confused the sites would show.  Site s is
 * called N * s times.  Usage: sites N
 */
#include <stdio.h>
#include <stdlib.h>
#include "perfeq_rt.h"
static const perfeq_func_t perfeq__funcs[] = { {"main", 1, 0, 0, 0}, {"leaf", 1, 0, 0, 0} };
static perfeq_unit_t perfeq__unit = { PERFEQ_ABI_VERSION, "sites.c", NULL, NULL, 2, perfeq__funcs, 0, 0, 0, 0 };
#line 1 "sites.c"
static long leaf(long v)
{
    PERFEQ_FUNC_BEGIN(perfeq__unit, 1)
    PERFEQ_BLOCK(0); return v + 1;
}

int main(int argc, char **argv)
{
    PERFEQ_FUNC_BEGIN(perfeq__unit, 0)
    PERFEQ_BLOCK(0); long n = argc > 1 ? atol(argv[1]) : 10, s = 0, i;
    for (i = 0; i < n; i++)
        s += PERFEQ_CALLED(perfeq__unit, 1, "leaf", leaf(i)) + PERFEQ_CALLED(perfeq__unit, 2, "leaf", leaf(i))
             + PERFEQ_CALLED(perfeq__unit, 2, "leaf", leaf(i)) + PERFEQ_CALLED(perfeq__unit, 3, "leaf", leaf(i))
             + PERFEQ_CALLED(perfeq__unit, 3, "leaf", leaf(i)) + PERFEQ_CALLED(perfeq__unit, 3, "leaf", leaf(i));
    printf("%ld\n", s);
    return 0;
}
