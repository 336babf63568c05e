/* Four searches of a table for values placed at n / 16, n / 8, n / 4 and n - 1: each while loop's
 * trips are data, fitted from the runs.  Beyond the training sizes, `perfeq counts` names them,
 * the one with most iterations there first (it was listed in source order, the last behind "...").
 * Usage: searches N */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    int *a = malloc(n * sizeof *a);
    for (int i = 0; i < n; i++)
        a[i] = 2 * i + 1;
    long found = 0;
    for (int rep = 0; rep < 20; rep++) {
        int j = 0;
        while (a[j] != 2 * (n / 16) + 1)
            j++;
        found += j;
        j = 0;
        while (a[j] != 2 * (n / 8) + 1)
            j++;
        found += j;
        j = 0;
        while (a[j] != 2 * (n / 4) + 1)
            j++;
        found += j;
        j = 0;
        while (a[j] != 2 * (n - 1) + 1)
            j++;
        found += j;
    }
    printf("%ld\n", found);
    free(a);
    return 0;
}
