/* A kernel included only under a build option (HPGMG-FV: `#ifdef USE_GSRB` / `#define GSRB_OOP` /
   `#include "operators/gsrb.c"`): the branch holds nothing but directives. */
static void relax(double *y, int n)
{
    for (int sweep = 0; sweep < RELAX_SWEEPS; sweep++)
        for (int i = 1; i < n - 1; i++)
            y[i] = 0.5 * (y[i - 1] + y[i + 1]);
}
