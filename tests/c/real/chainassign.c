/* Chained assignments (cpraveen/parallel poisson3d.c: spat_dim[0] = spat_dim[1] = spat_dim[2] = N;
   k1 = k2 = 1; in the branches of its CopySendBuf): each variable of the chain gets the last value.
   Before, the first ones were "unsupported construct Assignment": three loops fitted.  Usage: chainassign N */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 10, i1, i2, dims[3];
    double s = 0;
    dims[0] = dims[1] = dims[2] = n;
    for (int c = 0; c < 3; c++) {
        if (c == 0)
            i1 = i2 = 1;
        else
            i1 = i2 = 2;
        for (int i = i1; i < dims[1] - i2; i++)
            s += i * 0.5;
    }
    i1 = i2 = n / 2;
    for (int i = 0; i < i1 + i2; i++)
        s += i;
    printf("%g\n", s);
    return 0;
}
