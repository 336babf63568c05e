/* What GCC's headers and extensions put in front of the parser (found by the session 37 helper):
   <immintrin.h> brings GCC 12's pconfigintrin.h, whose `__asm__ __volatile__ ("pconfig" : ...)`
   stopped every instrumented build of UoB-HPC neutral ("syntax error before 'volatile'"); C99's
   complex.h I is `1.0iF` (UoB-HPC miniFMM: "syntax error before 'iF'"); and the program's own
   asm statements with qualifiers and commas.  Usage: intrinsics N */
#include <complex.h>
#include <stdio.h>
#include <stdlib.h>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

static inline unsigned long stamp(void)
{
    unsigned long value = 0;
#if defined(__x86_64__)
    unsigned lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    value = ((unsigned long)hi << 32) | lo;
#endif
    return value;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 64;
    float *a = malloc(sizeof(float) * 4 * (size_t)n), out[4];
    for (int i = 0; i < 4 * n; i++)
        a[i] = (float)(i % 5);
    unsigned long t0 = stamp();
#if defined(__x86_64__) || defined(__i386__)
    __m128 s = _mm_setzero_ps();
    for (int i = 0; i < n; i++)
        s = _mm_add_ps(s, _mm_loadu_ps(a + 4 * i));
    _mm_storeu_ps(out, s);
#else
    for (int k = 0; k < 4; k++) {
        out[k] = 0;
        for (int i = 0; i < n; i++)
            out[k] += a[4 * i + k];
    }
#endif
    double complex z = 0;
    for (int k = 0; k < n; k++)
        z += (k & 1) ? I : 1.0;
    asm volatile("" ::: "memory");
    printf("%g %g %g %d\n", out[0] + out[3], creal(z), cimag(z), stamp() >= t0 || t0 == 0);
    free(a);
    return 0;
}
