/* A parallel loop whose threads run no hook (its trips are counted at its entry, its body has no
 * branch or call: parallel-etudes' omp-gaussian-elimination): nothing inside the team showed the
 * runtime its size, and a run on two threads was recorded as one thread's (trace footer team 1;
 * the model and perfeq counts --trace compared it at T = 1, its ops not divided: -28.6 % at T = 2).
 * Usage: teamless N */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = atoi(argv[1]), i, j;
    float *x = malloc(sizeof(float) * n), s = 0;
    for (i = 0; i < n; i++)
        x[i] = 1;
#pragma omp parallel for reduction(+:s)
    for (j = 0; j < n; j++)
        s += x[j];
    printf("%g\n", s);
    free(x);
    return 0;
}
