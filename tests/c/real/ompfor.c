/* An `omp for` of its own inside a `parallel` region (NPB CG's conj_grad): every thread enters
 * the loop and runs a share of its iterations, so its iterations are n, not n * T; the sparse row
 * loop inside is data (row[j] .. row[j + 1]).  The bound n is a global set in main. */
#include <stdio.h>
#include <stdlib.h>
int n;
int main(int argc, char **argv)
{
    n = atoi(argv[1]);
    int *row = malloc(sizeof(int) * (n + 2));
    double *q = calloc(n + 2, sizeof(double));
    row[1] = 0;
    for (int j = 1; j <= n; j++) row[j + 1] = row[j] + 3 + j % 5;
    double sum;
    int j, k;
#pragma omp parallel private(sum, j, k)
    {
#pragma omp for
        for (j = 1; j <= n; j++) {
            sum = 0.0;
            for (k = row[j]; k < row[j + 1]; k++)
                sum = sum + k * 0.5;
            q[j] = sum;
        }
    }
    double t = 0;
    for (j = 1; j <= n; j++) t += q[j];
    printf("%g\n", t);
    return 0;
}
