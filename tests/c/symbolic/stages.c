/* Scalars an enclosing loop changes once per iteration (NPB FT's fft_init: ln = 2 * ln for the
 * butterflies of each stage; a level loop halving its size; a width growing by 2): first-order
 * recurrences over the outer loop's iterations, so the inner loops' bounds are symbolic.
 * Run: stages n m */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 64;
    int m = argc > 2 ? atoi(argv[2]) : 6;
    double s = 0.0;
    int ku = 1, ln = 1;
    for (int j = 1; j <= m; j++) {
        double t = 3.14159 / ln;
        for (int i = 0; i <= ln - 1; i++)
            s += cos(i * t);
        ku = ku + ln;
        ln = 2 * ln;
    }
    int size = n;
    for (int level = 0; level < m; level++) {
        size /= 2;
        for (int i = 0; i < size; i++)
            s += i;
    }
    int w = 3;
    for (int r = 0; r < 4; r++) {
        for (int i = 0; i < w * n; i++)
            s += 1.0;
        w += 2;
    }
    printf("%d %g\n", ku, s);
    return 0;
}
