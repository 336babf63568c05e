/* Loop bounds recorded once, at the entry of the outermost loop in which they cannot change, and
 * not at every entry of an inner loop: an opaque call in a loop nest stops the compiler's
 * optimisation of it (PolyBench gemm ran 1.33x slower instrumented, 1.0x with this).  m is assigned
 * in the outer loop and w is a global a called function assigns: those stay at their loop's entry. */
#include <stdio.h>
#include <stdlib.h>

int w = 3;

static void widen(void) { for (int t = 0; t < 1; t++) w = 3; }  /* the same value: the model can be exact;
                                                              a loop: nest is no leaf */

static double nest(int n, int k, double *a)
{
    double s = 0.0;
    int m = k;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < k; j++)          /* k: recorded at the entry of the i loop */
            a[j] += i * 0.5;
        for (int j = 0; j < m; j++)          /* m changes below: recorded here */
            s += a[j % k];
        m = k;                               /* assigned in the i loop */
        for (int j = 0; j < w; j++)          /* w: a call in the i loop changes it */
            s += j;
        widen();
    }
    return s;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 8, k = argc > 2 ? atoi(argv[2]) : 5;
    double *a = calloc((size_t)k, sizeof *a);
    printf("%.6g\n", nest(n, k, a));
    free(a);
    return 0;
}
