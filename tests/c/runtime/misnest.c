/* misnest.c -- perfeq runtime test: longjmp out of an instrumented function leaves its context
 * open, so main's leave is misnested: recording stops with one stderr line and a flag in the trace,
 * and the program's output and exit status are unchanged.
 */
#include <setjmp.h>
#include <stdio.h>
#include "perfeq_rt.h"
static const perfeq_func_t perfeq__funcs[] = { {"main", 2, 0, 0, 0}, {"fail", 1, 0, 0, 0} };
static perfeq_unit_t perfeq__unit = { PERFEQ_ABI_VERSION, "misnest.c", "misnest.perfeq.json", "0123abcd", 2, perfeq__funcs, 0, 0, 0, 0 };
#line 1 "misnest.c"
static jmp_buf env;

static void fail(void)
{
    PERFEQ_FUNC_BEGIN(perfeq__unit, 1)
    PERFEQ_BLOCK(0); longjmp(env, 1);
}

int main(void)
{
    PERFEQ_FUNC_BEGIN(perfeq__unit, 0)
    PERFEQ_BLOCK(0);
    if (setjmp(env) == 0)
        (PERFEQ_CALL(perfeq__unit, 1, "fail"), fail());
    PERFEQ_BLOCK(1); printf("after longjmp\n");
    return 0;
}
