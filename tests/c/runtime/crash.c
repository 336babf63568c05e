/* crash.c -- perfeq runtime test: a program killed by a signal (abort) leaves a trace with its
 * header and no footer; `perfeq run` merges it as incomplete and passes the status through.
 */
#include <stdio.h>
#include <stdlib.h>
#include "perfeq_rt.h"
static const perfeq_func_t perfeq__funcs[] = { {"main", 1, 0, 0, 0} };
static perfeq_unit_t perfeq__unit = { PERFEQ_ABI_VERSION, "crash.c", NULL, NULL, 1, perfeq__funcs, 0, 0, 0, 0 };
#line 1 "crash.c"
int main(void)
{
    PERFEQ_FUNC_BEGIN(perfeq__unit, 0)
    PERFEQ_BLOCK(0); printf("about to abort\n"); fflush(stdout);
    abort();
}
