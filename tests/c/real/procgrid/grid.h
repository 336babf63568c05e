/* The process grid's sides, as ParRes Kernels' par-res-kern_general.h computes them: a static
   inline function of a header, so perfeq sees only the call (its loop is not the program's). */
#ifndef GRID_H
#define GRID_H
#include <math.h>
static inline void factor(int r, int *fac1, int *fac2)
{
    for (*fac1 = (int)(sqrt(r + 1.0)); *fac1 > 0; (*fac1)--) {
        if (!(r % (*fac1))) {
            *fac2 = r / (*fac1);
            break;
        }
    }
}
#endif
