/* The problem size is the number of lines of the input file, counted while reading it (Rodinia
 * kmeans counts its points so): no statement records it, so the loops it bounds were constants
 * of the first run (-98 % at 8x), `perfeq cc --param N=n` was silently ignored and
 * `perfeq model --param N=n` refused.  The loops record their bound at entry: that value, one per
 * run, is the parameter's. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    char line[64];
    int n = 0;
    FILE *f = fopen(argv[1], "r");
    if (!f)
        return 1;
    while (fgets(line, sizeof line, f) != NULL)
        n++;
    fclose(f);
    double *a = malloc(n * sizeof *a), s = 0;
    for (int i = 0; i < n; i++)
        a[i] = i * 0.5;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            s += a[i] * a[j];
    printf("n=%d s=%g\n", n, s);
    free(a);
    return 0;
}
