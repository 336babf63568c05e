/* omp.c -- OpenMP: parallel for with and without collapse(2), parallel + for (in a block and on
 * consecutive lines), a loop every thread runs whole, reductions (perfeq instrumenter test corpus). */
#include <stdio.h>

#define N 32

static double a[N][N];

int main(void)
{
    int i, j;
    long sum = 0, diag = 0, count = 0, each = 0, evens = 0;
#pragma omp parallel for private(j)
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            a[i][j] = i + j;
#pragma omp parallel for collapse(2) reduction(+ : sum)
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            sum += (long)a[i][j];
#pragma omp parallel
    {
        long mine = 0;
#pragma omp for
        for (i = 0; i < N; i++) {
            if (i % 2)
                mine += (long)a[i][i];
        }
#pragma omp critical
        diag += mine;
#pragma omp atomic
        count++;
    }
#pragma omp parallel for reduction(+ : count)
    for (i = 0; i < N; i++)
        count += i > N / 2 ? 1 : 0;
#pragma omp parallel reduction(+ : each)
    for (int k = 0; k < 4; k++)
        each += 1;
#pragma omp parallel
#pragma omp for reduction(+ : evens)
    for (i = 0; i < N; i += 2)
        evens++;
    printf("sum %ld diag %ld count_ok %d each_ok %d evens %ld\n", sum, diag, count >= 16, each % 4 == 0 && each > 0,
           evens);
    return 0;
}
