/* Sizes read in a loop that reads until the value is valid (LLNL mpi_wave's
 * while ((nsteps < 1) || (nsteps > MAXSTEPS)) { ... scanf("%d", &nsteps); }): the value after the
 * loop is the size, recorded as a parameter (it was not: the loops it bounds were constants, and
 * perfeq could only hint --param).  A loop reading data (the weights) records nothing.
 * Usage: validation INPUT, INPUT holding points and steps, with invalid values first if you like. */
#include <stdio.h>
#include <stdlib.h>
#define MAXSTEPS 100000
int main(int argc, char **argv)
{
    int nsteps = 0, points = 0;
    FILE *f = fopen(argv[1], "r");
    if (!f)
        return 2;
    while (points < 10 || points > 1000000) {
        if (fscanf(f, "%d", &points) != 1)
            return 1;
    }
    do {
        if (fscanf(f, "%d", &nsteps) != 1)
            return 1;
    } while ((nsteps < 1) || (nsteps > MAXSTEPS));
    double w[4], *v = calloc(points, sizeof *v), s = 0;
    for (int k = 0; k < 4; k++)
        if (fscanf(f, "%lf", &w[k]) != 1)
            w[k] = 0.25;
    fclose(f);
    for (int t = 0; t < nsteps; t++)
        for (int i = 1; i < points - 1; i++) {
            v[i] = w[0] * v[i - 1] + w[1] * v[i + 1] + w[2];
            s += v[i];
        }
    printf("%g\n", s);
    free(v);
    return 0;
}
