/* A sieve's strides (mmarzolla/parallel-etudes omp-sieve.c, sequential): the inner loop runs
 * ceil((n - i) / i) times, and its sum over i is a harmonic number, n H(m) - m, which the model
 * could not evaluate: it fitted c log n per entry (-7.5 % at 8x).  Usage: harmonic N */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    char *a = calloc(n, 1);
    long c = 0;
    for (int x = 0; x < n; x += 3)
        a[x] = 1;
    for (int i = 1; i < n / 100; i++)
        for (int x = i; x < n; x += i)
            c += a[x];
    printf("%ld\n", c);
    free(a);
    return 0;
}
