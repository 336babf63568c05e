/* Instrumented by perfeq <version> from text.c: generated, do not edit.
 * Descriptors: <descriptors>
 * Build with the perfeq runtime (perfeq cc), or with -DPERFEQ_OFF for an uninstrumented build. */
#include "perfeq_rt.h"
static const perfeq_func_t perfeq__funcs[2] = {
    { "tricky", 22, 0, 0, 0 },
    { "main", 0, 0, 24, 0 }
};
/* the call sites of leaf functions: caller, site, callee, first counter, first value slot */
static const perfeq_leaf_t perfeq__leaves[1] = {
    { 1, 0, 0, 0, 0 }
};
static perfeq_unit_t perfeq__unit
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((unused))
#endif
    = { PERFEQ_ABI_VERSION, "text.c", "<descriptors>", "<digest>", 2, perfeq__funcs, 1, perfeq__leaves, 0, 0 };
PERFEQ_REGISTER_UNIT(perfeq__unit)
#line 1 "text.c"
/* text.c -- comments and strings containing braces and semicolons, #ifdef inside a function with
 * an inactive branch, multi-line macro invocations (perfeq instrumenter test corpus). */
#include <stdio.h>

#define SQUARE(x) ((x) * (x))
#define CLAMP(v, lo, hi) \
    ((v) < (lo) ? (lo) : ((v) > (hi) ? (hi) : (v)))
#define FOR_EACH(i, n) for ((i) = 0; (i) < (n); (i)++)

__attribute__((unused)) static int tricky(int n)
{ PERFEQ_LEAF_BEGIN(perfeq__unit, 0) 
    int i, s = 0; /* a comment with { braces; and semicolons } */
    const char *text = "if (x) { y; } else { z; }";
    char open = '{', close = '}', semi = ';';
    // a line comment: for (;;) { while (1); }
    { PERFEQ_LOOP_ENTER(0); PERFEQ_TRIPS_LT(1, (0), (n), 1); for (i = 0; i < n; i++) {
#ifdef NEVER_DEFINED_IN_THIS_BUILD
        s -= 1000;
        if (s) {
#else
        s += CLAMP(SQUARE(i),
                   2,
                   50);
        if (PERFEQ_BRANCH(2, (s > 0))) { PERFEQ_BLOCK(20); 
#endif
            s += text[i % 5] == '{';
        }
    } } PERFEQ_BLOCK(21); 
#if 0
    for (;;) { s = -1; }
#endif
    FOR_EACH(i, 3) s++;
    return s + open + close + semi;
}
#if PERFEQ__TWINS
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
static __attribute__((unused)) int perfeq__twin__tricky(perfeq_count_t *perfeq__c __attribute__((unused)), perfeq_value_stat_t *perfeq__lv __attribute__((unused)), int n)
#line 11 "text.c"
{ perfeq_ctx_t *perfeq__x __attribute__((unused)) = 0;
    int i, s = 0; /* a comment with { braces; and semicolons } */
    const char *text = "if (x) { y; } else { z; }";
    char open = '{', close = '}', semi = ';';
    // a line comment: for (;;) { while (1); }
    { PERFEQ_LOOP_ENTER(0); PERFEQ_TRIPS_LT(1, (0), (n), 1); for (i = 0; i < n; i++) {
#ifdef NEVER_DEFINED_IN_THIS_BUILD
        s -= 1000;
        if (s) {
#else
        s += CLAMP(SQUARE(i),
                   2,
                   50);
        if (PERFEQ_BRANCH(2, (s > 0))) { PERFEQ_BLOCK(20); 
#endif
            s += text[i % 5] == '{';
        }
    } } PERFEQ_BLOCK(21); 
#if 0
    for (;;) { s = -1; }
#endif
    FOR_EACH(i, 3) s++;
    return s + open + close + semi;
}
#pragma GCC diagnostic pop
#endif
#line 34 "text.c"


int main(void)
{ PERFEQ_FUNC_BEGIN(perfeq__unit, 1) 
    printf("tricky %d \"{;}\" %s\n", PERFEQ_LEAF_TWIN(perfeq__unit, 0, tricky)(PERFEQ_LEAF_ARGS(perfeq__unit, 0) 10), "/* not a comment */ }");
    return 0;
}
