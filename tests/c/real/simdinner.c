/* Inner loops under `omp simd` inside a parallel loop (Rodinia lud's interior blocks): simd runs a
 * loop in one thread's vector lanes and splits nothing over the team, but perfeq took it for a
 * worksharing loop and divided its iterations by the thread count once more (-44 % on 2 threads). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 64;
    float *a = malloc(sizeof(float) * n * 16), *b = malloc(sizeof(float) * 16);
    double total = 0;
    for (int j = 0; j < 16; j++)
        b[j] = 0.5f * j;
#pragma omp parallel for reduction(+ : total)
    for (int i = 0; i < n; i++) {
        float row[16];
#pragma omp simd
        for (int j = 0; j < 16; j++)
            row[j] = i * b[j];
#pragma omp simd reduction(+ : total)
        for (int j = 0; j < 16; j++) {
            a[i * 16 + j] = row[j] + 1.0f;
            total += row[j];
        }
    }
    printf("%g\n", total);
    free(a);
    free(b);
    return 0;
}
