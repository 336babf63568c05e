/* The size read inside the argument check (alexpap's mpicannon.c: `if (argc != 2 ||
 * (M = atoi(argv[1])) < 4 || ...)`): n was no parameter and m = n / 2 no assignment perfeq saw,
 * so every loop was the first run's constant (-99.8 % at 8x).  n is recorded after the if, m
 * resolved from its assignment in the condition.  Usage: assigncond N (N >= 4) */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n, m, i, j;
    if (argc != 2 || (n = atoi(argv[1])) < 4 || (m = n / 2) < 1) {
        fprintf(stderr, "usage: %s n (n >= 4)\n", argv[0]);
        return 1;
    }
    double *a = malloc((size_t)n * n * sizeof(double)), s = 0;
    for (i = 0; i < n * n; i++)
        a[i] = i % 7;
    for (i = 0; i < m; i++)
        for (j = 0; j < n; j++)
            s += a[i * n + j];
    printf("s %g\n", s);
    free(a);
    return 0;
}
