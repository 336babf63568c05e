/* Instrumented by perfeq <version> from loops.c: generated, do not edit.
 * Descriptors: <descriptors>
 * Build with the perfeq runtime (perfeq cc), or with -DPERFEQ_OFF for an uninstrumented build. */
#include "perfeq_rt.h"
static const perfeq_func_t perfeq__funcs[2] = {
    { "find", 22, 0, 0, 0 },
    { "main", 113, 2, 48, 0 }
};
/* the call sites of leaf functions: caller, site, callee, first counter, first value slot */
static const perfeq_leaf_t perfeq__leaves[2] = {
    { 1, 0, 0, 113, 2 },
    { 1, 1, 0, 137, 2 }
};
static perfeq_unit_t perfeq__unit
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((unused))
#endif
    = { PERFEQ_ABI_VERSION, "loops.c", "<descriptors>", "<digest>", 2, perfeq__funcs, 2, perfeq__leaves, 0, 0 };
PERFEQ_REGISTER_UNIT(perfeq__unit)
#line 1 "loops.c"
/* loops.c -- for/while/do loops with unbraced bodies, nested and triangular loops, macro bounds,
 * break/continue/return inside loops (perfeq instrumenter test corpus). */
#include <stdio.h>

#define N 16
#define STEP 2

__attribute__((unused)) static int find(const int *a, int n, int key)
{ PERFEQ_LEAF_BEGIN(perfeq__unit, 0) 
    int i;
    { PERFEQ_EXIT_DECL(perfeq__e0) PERFEQ_LOOP_ENTER(0); PERFEQ_EXIT_START(perfeq__e0, 1); for (i = 0; i < n; i++)
        {  PERFEQ_BLOCK(1); if (a[i] == key)
            {  PERFEQ_BLOCK(20); PERFEQ_GUARD_TAKEN(2, 1, perfeq__e0); return i; } } PERFEQ_GUARD_EXIT(2, 1, perfeq__e0); } PERFEQ_BLOCK(21); 
    return -1;
}
#if PERFEQ__TWINS
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
static __attribute__((unused)) int perfeq__twin__find(perfeq_count_t *perfeq__c __attribute__((unused)), perfeq_value_stat_t *perfeq__lv __attribute__((unused)), const int *a, int n, int key)
#line 9 "loops.c"
{ perfeq_ctx_t *perfeq__x __attribute__((unused)) = 0;
    int i;
    { PERFEQ_EXIT_DECL(perfeq__e0) PERFEQ_LOOP_ENTER(0); PERFEQ_EXIT_START(perfeq__e0, 1); for (i = 0; i < n; i++)
        {  PERFEQ_BLOCK(1); if (a[i] == key)
            {  PERFEQ_BLOCK(20); PERFEQ_GUARD_TAKEN(2, 1, perfeq__e0); return i; } } PERFEQ_GUARD_EXIT(2, 1, perfeq__e0); } PERFEQ_BLOCK(21); 
    return -1;
}
#pragma GCC diagnostic pop
#endif
#line 15 "loops.c"


int main(void)
{ PERFEQ_FUNC_BEGIN(perfeq__unit, 1) 
    int a[N];
    int i, j, k, sum = 0, count = 0;
    { PERFEQ_LOOP_ENTER(0); PERFEQ_TRIPS_LT(1, (0), (N), 1); for (i = 0; i < N; i++)
        { a[i] = i * i; } } PERFEQ_BLOCK(2); 
    { PERFEQ_LOOP_ENTER(3); PERFEQ_TRIPS_LT(4, (0), (N), 1); for (i = 0; i < N; i++)
        { { PERFEQ_LOOP_ENTER(5); PERFEQ_VALUE(0, (i)); PERFEQ_TRIPS_LT(6, (0), (i), 1); for (j = 0; j < i; j++)
            { sum += a[j]; } } } } PERFEQ_BLOCK(7); 
    { PERFEQ_LOOP_ENTER(8); for (i = N - 1; i >= 0; i -= STEP)
        {  PERFEQ_BLOCK(9); sum -= a[i]; } } PERFEQ_BLOCK(10); 
    i = 0;
    { PERFEQ_LOOP_ENTER(11); while (i < N)
        {  PERFEQ_BLOCK(12); i += 3; } } PERFEQ_BLOCK(13); 
    k = 100;
    { PERFEQ_LOOP_ENTER(14); do
        {  PERFEQ_BLOCK(15); k /= 2; }
    while (k > 3); } PERFEQ_BLOCK(16); 
    { PERFEQ_LOOP_ENTER(17); do { PERFEQ_BLOCK(18); 
        count++;
    } while (count < 5); } PERFEQ_BLOCK(19); 
    { PERFEQ_LOOP_ENTER(20); for (i = 0; i < N; i++) { PERFEQ_BLOCK(21); 
        if (PERFEQ_BRANCH(22, (i % 3 == 0)))
            {  PERFEQ_BLOCK(40); continue; } PERFEQ_BLOCK(41); 
        if (PERFEQ_BRANCH(42, (i > 12)))
            {  PERFEQ_BLOCK(60); break; } PERFEQ_BLOCK(61); 
        count += i;
    } } PERFEQ_BLOCK(62); 
    { PERFEQ_EXIT_DECL(perfeq__e9) PERFEQ_LOOP_ENTER(63); PERFEQ_EXIT_START(perfeq__e9, 64); for (;;) { PERFEQ_BLOCK(64); 
        if (++k > 20)
            {  PERFEQ_BLOCK(83); PERFEQ_GUARD_TAKEN(65, 64, perfeq__e9); break; }
    } PERFEQ_GUARD_EXIT(65, 64, perfeq__e9); } PERFEQ_BLOCK(84); 
    { PERFEQ_LOOP_ENTER(85); PERFEQ_TRIPS_LT(86, (0), (2), 2); for (int m = 0, n = 2; m < n; m++, n--) { count++; } } PERFEQ_BLOCK(87); 
    k = N;
    { PERFEQ_LOOP_ENTER(88); PERFEQ_VALUE(1, (k)); for (i = 0; i < k; i++)
        {  PERFEQ_BLOCK(89); if (PERFEQ_BRANCH(90, (i == 5)))
            {  PERFEQ_BLOCK(108); k--; } } } PERFEQ_BLOCK(109);  /* the bound moves: iterations cannot be computed at entry */
    { PERFEQ_LOOP_ENTER(110); while (0){  PERFEQ_BLOCK(111); ; } } PERFEQ_BLOCK(112); 
    printf("sum %d count %d i %d k %d find %d %d\n", sum, count, i, k, PERFEQ_LEAF_TWIN(perfeq__unit, 0, find)(PERFEQ_LEAF_ARGS(perfeq__unit, 0) a, N, 49), PERFEQ_LEAF_TWIN(perfeq__unit, 1, find)(PERFEQ_LEAF_ARGS(perfeq__unit, 1) a, N, 50));
    return 0;
}
