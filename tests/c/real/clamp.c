/* A value clamped by an if without else (HPGMG-FV's level.c:332 `int dim_k_mod = dim_k-kk;
   if(dim_k_mod>blockcopy_tile_k)dim_k_mod=blockcopy_tile_k;`, all on one line; the tile idiom
   `hi = lo + B; if (hi > n) hi = n;`; a formal parameter shortened in place).  The value is
   Piecewise((then value, condition), (value before the if, True)), the condition read with the
   values before the if.  Before: "'hi' changes inside an enclosing loop", a mean value fitted as
   n log 2 / log n (the model's counts negative at 8x), and the formal's clamp taken as always
   applied.  Usage: clamp N */
#include <stdio.h>
#include <stdlib.h>

static double part(const double *a, int lo, int len, int n)
{
    if (lo + len > n) len = n - lo;
    double s = 0.0;
    for (int i = lo; i < lo + len; i++)
        s += a[i];
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20;
    double *a = malloc((size_t)n * sizeof *a), s = 0.0;
    for (int i = 0; i < n; i++)
        a[i] = i % 5;
    for (int lo = 0; lo < n; lo += 8) {
        int hi = lo + 8;
        if (hi > n)
            hi = n;
        for (int i = lo; i < hi; i++)
            s += a[i] * 0.5;
    }
    for (int lo = 0; lo < n; lo += 6) {
        int w = n - lo;if(w>6)w=6;
        for (int i = 0; i < w; i++)
            s += a[lo + i];
    }
    for (int lo = 0; lo < n; lo += 6)
        s += part(a, lo, 6, n);
    printf("%.1f\n", s);
    free(a);
    return 0;
}
