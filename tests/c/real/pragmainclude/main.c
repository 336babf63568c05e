/* The `#pragma omp parallel for` of a loop is the last line of an included header (LLNL AMG2013,
 * parcsr_ls/par_interp.c: #define HYPRE_SMP_PRIVATE ... #include "../utilities/hypre_smp_forloop.h"
 * then the for).  perfeq put the loop's braces and hooks between the #include and the for, after
 * the pragma: "for statement expected before '{' token", no instrumented build.  Usage: main N */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000, i;
    long *a = malloc(n * sizeof(long)), s = 0;
#define SMP_PRIVATE i
#include "smp_forloop.h"
    for (i = 0; i < n; i++)
        a[i] = i;
    for (i = 0; i < n; i++)
        s += a[i];
    printf("%ld\n", s);
    free(a);
    return 0;
}
