/* Tiny functions called from many sites in a hot loop (NPB IS's randlc, four calls per key):
 * the runtime's bookkeeping per call, not the work, made such programs 3-14x slower. */
#include <stdio.h>
#include <stdlib.h>

static int first = 1;

static double step(double *x)
{
    if (first) {
        first = 0;
    }
    *x = *x * 1.0000001 - (int)*x;
    return *x;
}

static long twice(long v)
{
    if (v < 0)
        return -2 * v;
    return 2 * v;
}

static long depth(long v) { return v <= 0 ? 0 : 1 + depth(v - 1); }

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    double x = 0.5, s = 0.0;
    long i, t = 0;
    for (i = 0; i < n; i++) {
        s += step(&x) + step(&x) + step(&x) + step(&x);
        switch (i % 6) {
        case 0: t += twice(i); break;
        case 1: t -= twice(i); break;
        case 2: t += twice(i + 1); break;
        case 3: t -= twice(i + 1); break;
        case 4: t += depth(3); break;
        default: t += twice(twice(i)); break;
        }
    }
    printf("%.6f %ld\n", s, t);
    return 0;
}
