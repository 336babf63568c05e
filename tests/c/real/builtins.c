/* Compiler builtins: a loop condition in likely() (`__builtin_expect(!!(x), 1)`; Benchmarks Game
 * spectralnorm's `for (j = 2 * j; __builtin_expect(j < n, 0); j++)`) was a data-dependent loop,
 * fitted (-0.94 % at 8x, growing with the size), and every intrinsic (__builtin_popcount, the
 * __builtin_ia32_* of mandelbrot) counted as a call.
 * Usage: builtins N */
#include <stdio.h>
#include <stdlib.h>
#define likely(x) __builtin_expect(!!(x), 1)

int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    double s = 0;
    long bits = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; likely(j < i); j++)
            s += i * 0.5 + j;
    for (int i = 0; __builtin_expect(i < n, 1); i++)
        bits += __builtin_popcount((unsigned)i);
    printf("%g %ld\n", s, bits);
    return 0;
}
