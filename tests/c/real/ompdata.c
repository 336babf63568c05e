/* An omp for inside a parallel region whose bound is an array element (NPB FT's cffts1:
   `#pragma omp for` over k < d[2], d an array parameter), with a function called from its body.
   The trips per entry are fitted, and each thread entering the loop measures its share, NZ / T:
   the fit took that as the loop's trips and the team's division by T applied again, so at
   2 threads the loop and everything it calls had half their operations (FT's self-check -34 %).
   Usage: ompdata N */
#include <stdio.h>
#include <stdlib.h>

static double column(const double *x, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += x[i] * 0.5;
    return s;
}

static double sweep(int d[3], const double *x)
{
    double total = 0.0;
#pragma omp parallel default(shared) reduction(+ : total)
    {
#pragma omp for
        for (int k = 0; k < d[2]; k++)
            total += column(x + (size_t)k * d[0], d[0]);
    }
    return total;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 64;
    int d[3];
    for (int i = 0; i < 3; i++)  /* the sizes as data: filled at run time */
        d[i] = i == 2 ? n : 16 >> (2 * i);
    double *x = malloc((size_t)n * 16 * sizeof *x);
    for (int i = 0; i < n * 16; i++)
        x[i] = i % 13;
    double s = 0.0;
    for (int step = 0; step < 3; step++)
        s += sweep(d, x);
    printf("%.3f\n", s);
    free(x);
    return 0;
}
