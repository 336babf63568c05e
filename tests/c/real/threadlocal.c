/* Thread-local variables (__thread, C11 _Thread_local), as runtimes and allocators keep per-thread
 * state: the analysis parser did not know the storage class, so instrumenting failed at the first
 * function after one ("syntax error before '{'"). */
#include <stdio.h>
#include <stdlib.h>

static __thread long calls;
_Thread_local int depth = 0;

static long twice(long x)
{
    calls++;
    return 2 * x;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100, s = 0, i;
    for (i = 0; i < n; i++)
        s += twice(i);
    printf("%ld %ld %d\n", s, calls, depth);
    return 0;
}
