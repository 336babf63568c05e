/* macrofuncs: functions written by a macro (MP-Gadget/MP-sort, radixsort.c:47-63: a DEFTYPE macro
 * defines a comparator per type), then a function perfeq instruments.  The macro's functions are
 * not instrumented (their bodies are not where the parser says), and the functions after them got
 * their indices counted with them: hooks past the end of the unit's table, a SIGSEGV in MP-sort
 * ("unit funcs.c has no function 3 (1 functions)" and a trace cut short here). */
#include <stdio.h>
#include <stdlib.h>
typedef int (*cmp_fn)(const void *, const void *);
#define DEFTYPE(type) \
static int _cmp_ ## type (const void *a, const void *b) { \
    type x = *(const type *)a, y = *(const type *)b; return (x > y) - (x < y); }
DEFTYPE(int)
DEFTYPE(long)
DEFTYPE(short)
struct sorter { cmp_fn cmp; int n; };
void setup(struct sorter *s, int size, int n, const int *v)
{
    long t = 0;
    s->n = n;
    for (int i = 0; i < n; i++)
        t += v[i];
    if (t < 0)
        exit(1);
    switch (size) {
    case 2: s->cmp = _cmp_short; break;
    case 4: s->cmp = _cmp_int; break;
    default: s->cmp = _cmp_long; break;
    }
}
