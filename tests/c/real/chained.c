/* Loops that run two indices from one chained initialisation (miniAMR's block.c:162
   `for (i2 = i = 1; i <= x_block_half; i++, i2+=2)`, init.c:453 `for (o = n = k1 = k = 0; ...)`):
   the value of the loop variable is the chain's last right-hand side.  The loops were "not a
   counted for loop" (the chain's first assignment is not to the variable) or their first value
   "unsupported construct Assignment", and fitted.  Usage: chained N */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 20;
    int i, i2, j, k, o;
    double *a = calloc((size_t)(2 * n + 2), sizeof *a), s = 0.0;
    for (i2 = i = 1; i <= n; i++, i2 += 2)
        a[i2] = i;
    for (o = i = 0; i < n; i++, o++)
        s += a[o];
    for (j = 0, k = n; j < k; j++, k--)
        s += a[j] * a[k];
    for (i = 0; i < n; i++)
        for (j = i2 = 0; j < n; j++, i2 += 2)
            s += a[i2 % (2 * n)];
    printf("%.1f\n", s);
    free(a);
    return 0;
}
