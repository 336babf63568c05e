/* A loop whose trips follow no plain form of the size (levels of a division by 2.9: 7, 8, 8 at
 * n = 2000, 4000, 8000, 10 at 64000), and an argument the program never uses (a thread count, as
 * Rodinia bfs's omp_set_num_threads is commented out) that was 1, 2, 2 in the same runs.  Before,
 * the loop was fitted exactly through the two values of log2(t) + 7 (a line through two points),
 * the self-check said 0 and the counts were -19 % at 8x; now two values of a form are no fit when
 * the runs hold three of another, the loop is fitted to n and the self-check warns.
 * usage: unusedarg t n */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int t = argc > 2 ? atoi(argv[1]) : 1, n = argc > 2 ? atoi(argv[2]) : 1000, k = 0, i;
    double *a = calloc(n, sizeof(double)), v = n, s = 0;
    while (v > 1) {
        v = (int)(v / 2.9);
        for (i = 0; i < n; i++)
            a[i] += i * 0.5;
        k++;
    }
    for (i = 0; i < n; i++)
        s += a[i];
    printf("%d %g %d\n", k, s, t > 0);
    free(a);
    return 0;
}
