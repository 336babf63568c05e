/* One source built once per compiled-in size, every build in the same folder (PolyBench's -DN=...,
 * as the README's "build once per size" invites): each build wrote perfeq-build/compiledsize.perfeq.json,
 * so the traces of the earlier builds read the descriptors (macros) of the last one; the digest is
 * of the source text, the same in all, and nothing noticed: N was no parameter, the loop a constant
 * of 32 trips, the model -50 % off its second run.  With a descriptor file per build, the contexts
 * of the builds did not match (a context was known by its descriptor file's name), and the
 * data-dependent loop below was fitted from one run: +2503 % at N = 512.
 * Usage: compiledsize (built with -DN=...) */
#include <stdio.h>
#ifndef N
#define N 16
#endif
double a[N];
static double flush[64];

int main(void)
{
    double s = 0;
    int k = 0;
    for (int i = 0; i < N; i++) {
        a[i] = i;
        s += a[i] * 0.5;
    }
    while (flush[k] == 0.0 && k < 63)  /* 63 trips, data: the loop is fitted from the runs */
        k++;
    printf("%g %d\n", s, k);
    return 0;
}
