/* escape.c -- perfeq runtime test: strings in the trace are JSON-escaped (quotes, backslashes,
 * control characters) and invalid UTF-8 becomes U+FFFD.  The unit's source name has all of them.
 */
#include <stdio.h>
#include "perfeq_rt.h"
static const perfeq_func_t perfeq__funcs[] = { {"main", 1, 0, 0, 0} };
static perfeq_unit_t perfeq__unit = { PERFEQ_ABI_VERSION, "we\"ird\\name\n\t\xc3\xa9\xff.c", NULL, NULL, 1, perfeq__funcs, 0, 0, 0, 0 };
#line 1 "escape.c"
int main(int argc, char **argv)
{
    PERFEQ_FUNC_BEGIN(perfeq__unit, 0)
    PERFEQ_BLOCK(0); printf("%d %s\n", argc, argc > 1 ? argv[1] : "");
    return 0;
}
