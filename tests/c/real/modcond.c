/* Conditions on the loop variable: a residue (PolyBench's print_array, `if (i % 20 == 0)`), the
 * boundary points (`if (i == 0 || i == n - 1)`) and an interior (`if (i >= 2 && i < n - 2)`).  They
 * kept the first run's true ratio (4/64 at n = 64, 7/128 at n = 128 for the residue: calls +23 %
 * at n = 1024), exact only where the run's size happened to fit it; now they are counted.
 * Usage: modcond N */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    double s = 0, *a = malloc(n * sizeof *a);
    for (int i = 0; i < n; i++) {
        if (i % 20 == 0)
            printf("\n");
        if (i == 0 || i == n - 1)
            a[i] = 0;
        else
            a[i] = i * 0.5;
        if (i >= 2 && i < n - 2)
            s += a[i];
    }
    printf("%g\n", s);
    free(a);
    return 0;
}
