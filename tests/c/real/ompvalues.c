/* A loop inside a parallel region (its iterations counted by the thread's slab, no value recorded)
 * and a loop nest in serial code whose inner bound m is recorded at each of its n entries, inline
 * and without a lock (perfeq_rt.h's PERFEQ_VALUE: the context is the running thread's own). */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    int *len = malloc(sizeof(int) * (n + 1));
    for (int j = 0; j < n; j++) len[j] = 1 + j % 7;
    double total = 0.0;
#pragma omp parallel for reduction(+ : total)
    for (int j = 0; j < n; j++) {
        int m = len[j];
        for (int k = 0; k < m; k++)
            total += k * 0.5;
    }
    long serial = 0;
    for (int j = 0; j < n; j++) {
        int m = len[(j * 3) % n];
        for (int k = 0; k < m; k++)
            serial += k;
    }
    printf("%g %ld\n", total, serial);
    free(len);
    return 0;
}
