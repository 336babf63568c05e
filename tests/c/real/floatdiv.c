/* floatdiv: sizes computed in floating point.  C divides in double where an operand is a double
 * constant, a cast to double or a <math.h> call's value: ceil(100000.0 / (16.0 * n)) is 63 at
 * n = 100.  perfeq read 100000.0 as the integer it equals and (double)n as n, divided as integers
 * (a floor), and counted 62 (LLNL CLOMP's iteration count, clomp.c:2338: +1.6 % on its own runs).
 * Usage: floatdiv N */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100;
    long iters = (long) ceil(100000.0 / (16.0 * (double)n));
    int half = (int)(3 * n / 2.0);           /* 1.5 n, truncated */
    int third = (int) ceil((double)n / 3);
    double s = 0;
    for (long it = 0; it < iters; it++)
        for (int i = 0; i < half; i++)
            s += i * 0.5;
    for (int i = 0; i < third; i++)
        s -= i;
    printf("%ld %d %d %g\n", iters, half, third, s);
    return 0;
}
