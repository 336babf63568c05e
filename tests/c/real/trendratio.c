/* trendratio: a test on data whose true share falls with the size: Floyd-Warshall's relaxation on
 * random weights updates about n^2 of its n^3 tests (fsossai/floyd-warshall-mpi, pfw.c:21).  The
 * runs' ratios differ (0.0433 at n = 60, 0.0219 at 120) and perfeq kept the first run's: the
 * stores of the update +512 % at n = 480 (the program it came from: +488 % at 8x).
 * Usage: trendratio N */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 60;
    float *d = malloc(sizeof(float) * n * n);
    long updates = 0;
    unsigned seed = 1;
    for (int i = 0; i < n * n; i++) {
        seed = seed * 1103515245u + 12345u;     /* the same weights on every C library */
        d[i] = (float)((seed >> 16) % 10);
    }
    for (int h = 0; h < n; h++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (d[i * n + h] + d[h * n + j] < d[i * n + j]) {
                    d[i * n + j] = d[i * n + h] + d[h * n + j];
                    updates++;
                }
    printf("n = %d updates = %ld\n", n, updates);
    free(d);
    return 0;
}
