/* omp_loop.c -- perfeq runtime test: OpenMP regions, a worksharing loop whose body calls an
 * instrumented function on every thread and records a value (the locked PERFEQ_VALUE_MT), and a
 * per-thread loop.  Hand-instrumented as perfeq's instrumenter emits code.  Usage: omp_loop N REPS
 */
#include <stdio.h>
#include <stdlib.h>
#include "perfeq_rt.h"
static const perfeq_func_t perfeq__funcs[] = { {"main", 13, 2, 0, 0}, {"square", 1, 0, 0, 0} };
static perfeq_unit_t perfeq__unit = { PERFEQ_ABI_VERSION, "omp_loop.c", "omp_loop.perfeq.json", "0123abcd", 2, perfeq__funcs, 0, 0, 0, 0 };
#line 1 "omp_loop.c"
static double square(double x)
{
    PERFEQ_FUNC_BEGIN(perfeq__unit, 1)
    PERFEQ_BLOCK(0); return x * x;
}

int main(int argc, char **argv)
{
    PERFEQ_FUNC_BEGIN(perfeq__unit, 0)
    PERFEQ_BLOCK(0); int n = argc > 1 ? atoi(argv[1]) : 10, reps = argc > 2 ? atoi(argv[2]) : 3, r, i;
    double s = 0;
    PERFEQ_PARAM("n", n);
    { PERFEQ_LOOP_ENTER(1); for (r = 0; PERFEQ_ITER(2, r < reps); r++) {
        PERFEQ_BLOCK(4);
        { PERFEQ_LOOP_ENTER(5); PERFEQ_BLOCK(6); PERFEQ_VALUE(0, n); PERFEQ_REGION(8);
#pragma omp parallel for reduction(+:s)
          for (i = 0; i < n; i++) {
              PERFEQ_ITER_BODY_MT(6); PERFEQ_BLOCK_MT(9); PERFEQ_VALUE_MT(1, i);
              s += (PERFEQ_CALL(perfeq__unit, 1, "square"), square(i));
          } }
    } }
    PERFEQ_REGION(10);
#pragma omp parallel
    { int j; for (j = 0; PERFEQ_ITER_MT(11, j < 3); j++) { } }
    printf("s=%g\n", s);
    return 0;
}
