/* counted.c with its loops under `#pragma omp parallel for` (OmpSCR c_jacobi01's sizes come from a
 * helper in another file, no statement of the program's records them): a combined parallel loop
 * recorded no bound at entry, so `perfeq model --param N=n` found nothing to take n's value from
 * and the loops stayed the first run's constants (-75 % and -89 % on the training runs).  The
 * bound of a combined parallel loop in serial code is recorded before its pragma, as a serial
 * loop's is. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    char line[64];
    int n = 0, i, j;
    FILE *f = fopen(argv[1], "r");
    if (!f)
        return 1;
    while (fgets(line, sizeof line, f) != NULL)
        n++;
    fclose(f);
    double *a = malloc(n * sizeof *a), s = 0;
    #pragma omp parallel for
    for (i = 0; i < n; i++)
        a[i] = i * 0.5;
    #pragma omp parallel for private(j) reduction(+:s)
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            s += a[i] * a[j];
    printf("n=%d s=%g\n", n, s);
    free(a);
    return 0;
}
