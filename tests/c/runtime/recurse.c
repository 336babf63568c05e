/* recurse.c -- perfeq runtime test: recursion is folded onto the first context of the recursive
 * function, so the number of contexts stays bounded.  Usage: recurse N
 */
#include <stdio.h>
#include <stdlib.h>
#include "perfeq_rt.h"
static const perfeq_func_t perfeq__funcs[] = { {"main", 1, 0, 0, 0}, {"fib", 3, 0, 0, 0} };
static perfeq_unit_t perfeq__unit = { PERFEQ_ABI_VERSION, "recurse.c", NULL, NULL, 2, perfeq__funcs, 0, 0, 0, 0 };
#line 1 "recurse.c"
static long fib(int n)
{
    PERFEQ_FUNC_BEGIN(perfeq__unit, 1)
    if (PERFEQ_COND(0, n < 2)) { PERFEQ_BLOCK(2); return n; }
    return (PERFEQ_CALL(perfeq__unit, 2, "fib"), fib(n - 1)) + (PERFEQ_CALL(perfeq__unit, 3, "fib"), fib(n - 2));
}

int main(int argc, char **argv)
{
    PERFEQ_FUNC_BEGIN(perfeq__unit, 0)
    PERFEQ_BLOCK(0); int n = argc > 1 ? atoi(argv[1]) : 10;
    printf("fib(%d)=%ld\n", n, (PERFEQ_CALL(perfeq__unit, 1, "fib"), fib(n)));
    return 0;
}
