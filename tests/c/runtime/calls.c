/* calls.c -- perfeq runtime test: loops, conditionals, one function called from two call sites,
 * values, a parameter, and the three ways a program ends (return 0, exit(3) deep inside, return 5).
 * Hand-instrumented as perfeq's instrumenter emits code.  Usage: calls N [ok|exit3|ret5]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "perfeq_rt.h"
#ifndef PERFEQ_TEST_DESCRIPTORS
#define PERFEQ_TEST_DESCRIPTORS "calls.perfeq.json"
#endif
static const perfeq_func_t perfeq__funcs[] = { {"main", 12, 1, 0, 0}, {"work", 8, 1, 0, 0}, {"scale", 1, 0, 0, 0} };
static perfeq_unit_t perfeq__unit = { PERFEQ_ABI_VERSION, "calls.c", PERFEQ_TEST_DESCRIPTORS, "0123abcd", 3, perfeq__funcs, 0, 0, 0, 0 };
#line 1 "calls.c"
static double scale(double x)
{
    PERFEQ_FUNC_BEGIN(perfeq__unit, 2)
    PERFEQ_BLOCK(0); return 2.0 * x;
}

static double work(const double *a, int n, int die)
{
    PERFEQ_FUNC_BEGIN(perfeq__unit, 1)
    PERFEQ_BLOCK(0); double s = 0; int i;
    { PERFEQ_LOOP_ENTER(1); PERFEQ_VALUE(0, n);
      for (i = 0; PERFEQ_ITER(2, i < n); i++) {
          PERFEQ_BLOCK(4); s += (PERFEQ_CALL(perfeq__unit, 3, "scale"), scale(a[i]));
          if (PERFEQ_COND(5, die && i == 2)) { PERFEQ_BLOCK(7); printf("exit(3) in work\n"); exit(3); }
      } }
    return s;
}

int main(int argc, char **argv)
{
    PERFEQ_FUNC_BEGIN(perfeq__unit, 0)
    PERFEQ_BLOCK(0); int n = argc > 1 ? atoi(argv[1]) : 8; const char *mode = argc > 2 ? argv[2] : "ok";
    int i; double s1, s2; double *a;
    PERFEQ_PARAM("n", n);
    a = malloc(PERFEQ_SIZE(0, n * sizeof(double)));
    if (PERFEQ_COND(1, a == NULL)) { PERFEQ_BLOCK(3); return 1; }
    { PERFEQ_LOOP_ENTER(4); for (i = 0; PERFEQ_ITER(5, i < n); i++) { PERFEQ_BLOCK(7); a[i] = i; } }
    s1 = (PERFEQ_CALL(perfeq__unit, 1, "work"), work(a, n, 0));
    s2 = (PERFEQ_CALL(perfeq__unit, 2, "work"), work(a, n / 2, strcmp(mode, "exit3") == 0));
    printf("s1=%g s2=%g\n", s1, s2);
    free(a);
    if (PERFEQ_COND(8, strcmp(mode, "ret5") == 0)) { PERFEQ_BLOCK(10); return 5; }
    PERFEQ_BLOCK(11); return 0;
}
