/* NPB MG's class letter (mg.c:144-190): set by an else-if chain on the sizes, then tested in an
 * || of three letters to pick the smoother's coefficients.  The letter resolved to the chain's
 * last if alone ('A' or 'U'), so at classes S and W the model took the else branch; resolved
 * whole, sympy folded the comparison into an if-then-else of conditions that numpy could not
 * evaluate, and the branch fell back to the first run's ratio: MG's self-check +25 % in div,
 * this program's -45 % ops.  An if in an else block whose value is used in that block (MG's
 * interpolation's d1) must keep resolving there.
 * Usage: classchain nx nit [ny nz] */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int nx = argc > 1 ? atoi(argv[1]) : 32, nit = argc > 2 ? atoi(argv[2]) : 4, i, it, d1;
    int ny = argc > 3 ? atoi(argv[3]) : nx, nz = argc > 4 ? atoi(argv[4]) : nx;
    char Class;
    double c[4], *u, s = 0;
    if (nx != ny || nx != nz) {
        Class = 'U';
    } else if (nx == 32 && nit == 4) {
        Class = 'S';
    } else if (nx == 64 && nit == 40) {
        Class = 'W';
    } else if (nx == 256 && nit == 20) {
        Class = 'B';
    } else if (nx == 512 && nit == 20) {
        Class = 'C';
    } else if (nx == 256 && nit == 4) {
        Class = 'A';
    } else {
        Class = 'U';
    }
    if (Class == 'A' || Class == 'S' || Class == 'W') {
        c[0] = -3.0 / 8.0;
        c[1] = 1.0 / 32.0;
        c[2] = -1.0 / 64.0;
    } else {
        c[0] = -3.0 / 17.0;
        c[1] = 1.0 / 33.0;
        c[2] = -1.0 / 61.0;
    }
    c[3] = 0.0;
    u = malloc(nx * sizeof(double));
    for (i = 0; i < nx; i++)
        u[i] = i % 5;
    for (it = 0; it < nit; it++) {
        if (Class != 'U') {
            for (i = 1; i < nx - 1; i++)
                u[i] = c[0] * u[i] + c[1] * (u[i - 1] + u[i + 1]);
        } else {
            for (i = 1; i < nx - 1; i++)
                u[i] = c[2] * u[i];
        }
    }
    if (nit < 0) {
        s = -1;
    } else { /* an if in an else block, its value used there (mg.c:703-720's d1) */
        if (nx % 64 == 0) {
            d1 = 2;
        } else {
            d1 = 1;
        }
        for (i = d1; i < nx; i++)
            s += u[i];
    }
    printf("class %c sum %.6e\n", Class, s);
    free(u);
    return 0;
}
