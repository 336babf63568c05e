/* Instrumented by perfeq <version> from branches.c: generated, do not edit.
 * Descriptors: <descriptors>
 * Build with the perfeq runtime (perfeq cc), or with -DPERFEQ_OFF for an uninstrumented build. */
#include "perfeq_rt.h"
static const perfeq_func_t perfeq__funcs[3] = {
    { "classify", 60, 0, 0, 0 },
    { "days", 9, 0, 0, 0 },
    { "main", 46, 0, 73, 0 }
};
/* the call sites of leaf functions: caller, site, callee, first counter, first value slot */
static const perfeq_leaf_t perfeq__leaves[2] = {
    { 2, 0, 0, 46, 0 },
    { 2, 1, 1, 108, 0 }
};
static perfeq_unit_t perfeq__unit
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((unused))
#endif
    = { PERFEQ_ABI_VERSION, "branches.c", "<descriptors>", "<digest>", 3, perfeq__funcs, 2, perfeq__leaves, 0, 0 };
PERFEQ_REGISTER_UNIT(perfeq__unit)
#line 1 "branches.c"
/* branches.c -- if/else-if chains without braces, switch with fallthrough, ternaries
 * (perfeq instrumenter test corpus). */
#include <stdio.h>

__attribute__((unused)) static const char *classify(int x)
{ PERFEQ_LEAF_BEGIN(perfeq__unit, 0) 
    if (PERFEQ_BRANCH(0, (x < 0)))
        {  PERFEQ_BLOCK(18); return "negative"; }
    else {  PERFEQ_BLOCK(19); if (PERFEQ_BRANCH(20, (x == 0)))
        {  PERFEQ_BLOCK(38); return "zero"; }
    else {  PERFEQ_BLOCK(39); if (PERFEQ_BRANCH(40, (x < 10)))
        {  PERFEQ_BLOCK(58); return "small"; }
    else
        {  PERFEQ_BLOCK(59); return "large"; } } }
}
#if PERFEQ__TWINS
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
static __attribute__((unused)) const char *perfeq__twin__classify(perfeq_count_t *perfeq__c __attribute__((unused)), perfeq_value_stat_t *perfeq__lv __attribute__((unused)), int x)
#line 6 "branches.c"
{ perfeq_ctx_t *perfeq__x __attribute__((unused)) = 0;
    if (PERFEQ_BRANCH(0, (x < 0)))
        {  PERFEQ_BLOCK(18); return "negative"; }
    else {  PERFEQ_BLOCK(19); if (PERFEQ_BRANCH(20, (x == 0)))
        {  PERFEQ_BLOCK(38); return "zero"; }
    else {  PERFEQ_BLOCK(39); if (PERFEQ_BRANCH(40, (x < 10)))
        {  PERFEQ_BLOCK(58); return "small"; }
    else
        {  PERFEQ_BLOCK(59); return "large"; } } }
}
#pragma GCC diagnostic pop
#endif
#line 15 "branches.c"


__attribute__((unused)) static int days(int month)
{ PERFEQ_LEAF_BEGIN(perfeq__unit, 1) 
    int d = 0;
    switch (month) {
    case 2: PERFEQ_BLOCK(0); 
        d = 28;
        break;
    case 4: PERFEQ_BLOCK(1);  case 6: PERFEQ_BLOCK(2); 
    case 9: PERFEQ_BLOCK(3); 
    case 11: PERFEQ_BLOCK(4); 
        d = 30;
        break;
    case 13: PERFEQ_BLOCK(5); 
        d += 1;
        /* fall through */
    case 14: PERFEQ_BLOCK(6); 
        d += 2;
    default: PERFEQ_BLOCK(7); 
        d += 31;
    } PERFEQ_BLOCK(8); 
    return d;
}
#if PERFEQ__TWINS
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
static __attribute__((unused)) int perfeq__twin__days(perfeq_count_t *perfeq__c __attribute__((unused)), perfeq_value_stat_t *perfeq__lv __attribute__((unused)), int month)
#line 18 "branches.c"
{ perfeq_ctx_t *perfeq__x __attribute__((unused)) = 0;
    int d = 0;
    switch (month) {
    case 2: PERFEQ_BLOCK(0); 
        d = 28;
        break;
    case 4: PERFEQ_BLOCK(1);  case 6: PERFEQ_BLOCK(2); 
    case 9: PERFEQ_BLOCK(3); 
    case 11: PERFEQ_BLOCK(4); 
        d = 30;
        break;
    case 13: PERFEQ_BLOCK(5); 
        d += 1;
        /* fall through */
    case 14: PERFEQ_BLOCK(6); 
        d += 2;
    default: PERFEQ_BLOCK(7); 
        d += 31;
    } PERFEQ_BLOCK(8); 
    return d;
}
#pragma GCC diagnostic pop
#endif
#line 38 "branches.c"


int main(void)
{ PERFEQ_FUNC_BEGIN(perfeq__unit, 2) 
    int i, total = 0, odd = 0;
    { PERFEQ_LOOP_ENTER(0); PERFEQ_TRIPS_LT(1, (-2), (15), 1); for (i = -2; i < 15; i++) {
        printf("%d %s %d\n", i, PERFEQ_LEAF_TWIN(perfeq__unit, 0, classify)(PERFEQ_LEAF_ARGS(perfeq__unit, 0) i), PERFEQ_LEAF_TWIN(perfeq__unit, 1, days)(PERFEQ_LEAF_ARGS(perfeq__unit, 1) i));
        total += i > 5 ? i : (i < 0 ? -i : 0);
        odd += (i % 2) ? 1 : 0;
    } } PERFEQ_BLOCK(2); 
    if (PERFEQ_EITHER(3, 4, (total > 100))) { total = 100; } else { total = -total; } PERFEQ_BLOCK(5); 
    if (PERFEQ_BRANCH(6, (odd)))
        {  PERFEQ_BLOCK(24); if (PERFEQ_BRANCH(25, (total)))
            {  PERFEQ_BLOCK(43); printf("nested\n"); }
        else
            {  PERFEQ_BLOCK(44); printf("dangling\n"); } } PERFEQ_BLOCK(45); 
    printf("total %d odd %d\n", total, odd);
    return 0;
}
