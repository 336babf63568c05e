/* sameheaders: a/kernel.c and b/kernel.c are one text; each must get its own folder's "headers.h",
 * as the compiler gives it, when all the program's folders are on one perfeq cc line.  perfeq cc
 * put -I<each source folder> first and compiled the copies from its build folder, so both got
 * a/headers.h: `fb` undefined, `fa` defined twice (LLNL AMG2013 would not build). */
#include "headers.h"
double KERNEL(const double *x, int n)
{
    double s = 0;
    for (int i = 0; i < n; i += STRIDE)
        s += x[i];
    return s;
}
