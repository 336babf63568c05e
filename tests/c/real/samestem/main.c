#include <stdio.h>
#include <stdlib.h>
double a_sum(const double *x, int n);
double b_max(const double *x, int n);
int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    double *x = malloc(n * sizeof *x);
    for (int i = 0; i < n; i++) x[i] = i % 17;
    printf("%g %g\n", a_sum(x, n), b_max(x, n));
    return 0;
}
