/* A verification routine in the manner of the NAS benchmarks: the class and the reference values
 * are set by a chain of branches on the sizes, a flag through a pointer is cleared under several
 * of them, and the flag and the class are tested at the end.  The flag's value as a condition is
 * a Piecewise of every branch (NPB LU's `if (*verified)`: 1083 terms, and sympy did not decide it
 * in ten minutes); the model takes such a condition's measured ratio.  Prints the sum and a verdict.
 * Usage: flags N STEPS */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static void verify(int n, int steps, double x, double dt, char *class, int *verified)
{
    double xref = 1, yref = 1, zref = 1, dtref = 1, xdif, ydif, zdif, eps = 1e-8;
    *verified = 1;
    *class = 'U';
    if (n == 12 && n == 12 && n == 12 && steps == 50) {
        *class = 'S';
        dtref = 0.5; xref = 1.5; yref = 2.5; zref = 3.5;
    } else if (n == 33 && n == 33 && n == 33 && steps == 300) {
        *class = 'W';
        dtref = 1.5; xref = 2.5; yref = 3.5; zref = 4.5;
    } else if (n == 64 && n == 64 && n == 64 && steps == 250) {
        *class = 'A';
        dtref = 2.0; xref = 3.5; yref = 4.5; zref = 5.5;
    } else if (n == 102 && n == 102 && n == 102 && steps == 250) {
        *class = 'B';
        dtref = 2.0; xref = 4.5; yref = 5.5; zref = 6.5;
    } else if (n == 162 && n == 162 && n == 162 && steps == 250) {
        *class = 'C';
        dtref = 2.0; xref = 5.5; yref = 6.5; zref = 7.5;
    } else {
        *verified = 0;
    }
    xdif = fabs((x - xref) / xref);
    ydif = fabs((x - yref) / yref);
    zdif = fabs((x - zref) / zref);
    if (*class != 'U') {
        if (fabs(dt - dtref) > eps) {
            *verified = 0;
            *class = 'U';
        }
    }
    if (*class == 'U')
        printf(" %g\n", x);
    else if (xdif > eps)
        *verified = 0;
    if (*class == 'U')
        printf(" %g\n", x);
    else if (ydif > eps)
        *verified = 0;
    if (*class == 'U')
        printf(" %g\n", x);
    else if (zdif > eps)
        *verified = 0;
    if (*class == 'U')
        printf(" no verification\n");
    else if (*verified)
        printf(" verification successful\n");
    else
        printf(" verification failed\n");
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 12, steps = argc > 2 ? atoi(argv[2]) : 5, i, j, verified;
    char class;
    double x = 0;
    for (j = 0; j < steps; j++)
        for (i = 0; i < n; i++)
            x += 1.0 / (i + j + 1);
    verify(n, steps, x, 2.0, &class, &verified);
    printf("%.6f %c %d\n", x, class, verified);
    return 0;
}
