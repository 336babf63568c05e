/* Loop tiling (ParRes Kernels' Transpose and DGEMM, PolyBench's tiled kernels): the tile loops
   run to MIN(n, i + TILE), so the sum over the outer loop of min(n, i + TILE) - i is n.  sympy
   finds no closed form for a sum of a Min or a ?:, and the tile loops were fitted (exact only at
   sizes a fit happens to reproduce).  Usage: tiled N */
#include <stdio.h>
#include <stdlib.h>

#define MIN(x, y) ((x) < (y) ? (x) : (y))
#define TILE 8

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20;
    double *a = malloc((size_t)n * n * sizeof *a), *b = malloc((size_t)n * n * sizeof *b);
    for (int i = 0; i < n * n; i++)
        a[i] = i % 7, b[i] = 0.0;
    for (int i = 0; i < n; i += TILE)
        for (int j = 0; j < n; j += TILE)
            for (int it = i; it < MIN(n, i + TILE); it++)
                for (int jt = j; jt < MIN(n, j + TILE); jt++)
                    b[jt * n + it] += a[it * n + jt];
    double s = 0.0;
    for (int lo = 0; lo < n; lo += TILE) {              /* a triangle of tiles */
        int hi = lo + TILE < n ? lo + TILE : n;
        for (int i = lo; i < hi; i++)
            for (int j = 0; j <= i; j++)
                s += b[i * n + j];
    }
    printf("%.1f\n", s);
    free(a);
    free(b);
    return 0;
}
