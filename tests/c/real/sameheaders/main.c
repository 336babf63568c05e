/* sameheaders: see a/kernel.c.  Usage: main N */
#include <stdio.h>
#include <stdlib.h>
double a_scale(const double *x, int n);
double b_every(const double *x, int n);
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 90;
    double *x = malloc(n * sizeof *x);
    for (int i = 0; i < n; i++)
        x[i] = i % 7;
    printf("%g %g\n", a_scale(x, n), b_every(x, n));
    free(x);
    return 0;
}
