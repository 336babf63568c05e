/* Loops that step a second variable with their own (ParRes Kernels' DGEMM tiles: `for (kg = kk,
   k = 0; kg < MIN(kk + nb, K); k++, kg++)`, the tile index k beside the global index kg).  The
   second variable is the first one's offset (k = kg - kk): subscripts in it are unit-stride
   references (they were "indirect", and the convolution priced every access of the tile product
   at the latency of memory: PRK DGEMM predicted 7.9 s for 0.26 s), and a loop bounded by it is
   counted (it was fitted).  A pair running towards each other (i up, j down) keeps its own
   rule (the distance between them shrinks by 2).
   Usage: inductions N (N a multiple of 8) */
#include <stdio.h>
#include <stdlib.h>

#define NB 8
#define MIN(a, b) ((a) < (b) ? (a) : (b))

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 32;
    double *a = malloc((size_t)n * n * sizeof(double));
    double *tile = malloc(NB * NB * sizeof(double));
    double s = 0.0;
    for (int i = 0; i < n * n; i++)
        a[i] = (i % 13) * 0.5;
    for (int kk = 0; kk < n; kk += NB)
        for (int mm = 0; mm < n; mm += NB) {
            for (int kg = kk, k = 0; kg < MIN(kk + NB, n); k++, kg++)
                for (int mg = mm, m = 0; mg < MIN(mm + NB, n); m++, mg++)
                    tile[k * NB + m] = a[(size_t)kg * n + mg];
            for (int kg = kk, k = 0; kg < MIN(kk + NB, n); k++, kg++)
                for (int j = 0; j <= k; j++)      /* a triangle of the tile: bounded by k */
                    s += tile[k * NB + j];
        }
    for (int i = 0, j = n - 1; i < j; i++, j--)   /* i up, j down: n / 2 iterations */
        s += a[i] * a[j];
    printf("%.6g\n", s);
    free(a);
    free(tile);
    return 0;
}
