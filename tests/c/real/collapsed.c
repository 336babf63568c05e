/* collapsed: collapse(2) nests over two sizes (victorkingi/advanced-hpc-lbm, d2q9-bgk.c:589 and
 * others: `#pragma omp simd collapse(2)` over ny and nx).  perfeq counted the innermost body of a
 * collapsed nest and fitted its iterations in the size the training runs varied, the other bound
 * baked in as a number: -50 % where it doubled.  Now the inner headers are in the descriptors and
 * the iterations are the product of the levels'.  Usage: collapsed NY NX */
#include <stdio.h>
#include <stdlib.h>

typedef struct { int nx, ny; } t_param;

int main(int argc, char **argv)
{
    t_param params;
    params.ny = argc > 1 ? atoi(argv[1]) : 64;
    params.nx = argc > 2 ? atoi(argv[2]) : 64;
    float *a = malloc(sizeof(float) * params.nx * params.ny);
    double sum = 0.0, total = 0.0;
    for (int it = 0; it < 10; it++) {
#pragma omp simd collapse(2) reduction(+:sum)
        for (int jj = 0; jj < params.ny; jj++) {
            for (int ii = 0; ii < params.nx; ii++) {
                a[ii + jj * params.nx] = 0.5f * (ii + jj) + it;
                sum += a[ii + jj * params.nx];
            }
        }
    }
#pragma omp parallel for collapse(2) reduction(+:total)
    for (int jj = 1; jj < params.ny - 1; jj++)
        for (int ii = 1; ii < params.nx - 1; ii++)
            total += a[ii + jj * params.nx] * 0.25;
    printf("sum = %.1f total = %.1f\n", sum, total);
    free(a);
    return 0;
}
